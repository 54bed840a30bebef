/**
 * A one-line text field drawn with a block cursor. It holds no state: the root dispatcher owns the
 * text (one input handler for the whole app), so masking is a display concern only.
 */

import { type Theme, toneColor } from '../theme.js';
import { Text } from './safe-text.js';

export function TextInput(props: {
  label: string;
  value: string;
  focused: boolean;
  width: number;
  theme: Theme;
  /** CHAP secrets: never rendered, only their length as bullets. */
  mask?: boolean;
  error?: string | undefined;
  placeholder?: string;
  /** What an empty value stands for (`(empty: ext4)`), shown dim after the cursor, focused or not. */
  empty?: string | undefined;
}) {
  const { label, value, focused, theme, mask } = props;
  const shown = mask ? '•'.repeat(value.length) : value;
  const room = Math.max(4, props.width - label.length - 3);
  const visible = shown.length > room ? `…${shown.slice(shown.length - room + 1)}` : shown;
  return (
    <Text wrap="truncate">
      <Text
        color={toneColor(theme, focused ? 'accent' : undefined)}
        bold={focused}
      >{`${focused ? '›' : ' '} ${label} `}</Text>
      <Text color={toneColor(theme, visible ? undefined : 'dim')}>
        {visible || (focused ? '' : (props.placeholder ?? ''))}
      </Text>
      {/* Without colours inverse video is dropped too: the cursor is then a block you can see. */}
      {focused ? theme.color ? <Text inverse> </Text> : <Text>█</Text> : null}
      {props.empty && !visible ? <Text color={toneColor(theme, 'dim')}>{` ${props.empty}`}</Text> : null}
      {props.error ? <Text color={toneColor(theme, 'bad')}>{`  ✗ ${props.error}`}</Text> : null}
    </Text>
  );
}

/** Applies one keystroke to a text value (typing, backspace); undefined when the key is not for text. */
export function editText(
  value: string,
  input: string,
  key: { backspace?: boolean; delete?: boolean; ctrl?: boolean; meta?: boolean },
): string | undefined {
  if (key.backspace || key.delete) return value.slice(0, -1);
  if (key.ctrl && input === 'w') return value.replace(/\S+\s*$/, '');
  if (key.ctrl || key.meta || !input) return undefined;
  // Pasted text arrives as one chunk; drop control characters so they cannot reach the screen.
  const clean = input.replace(/[\u0000-\u001f\u007f]/g, '');
  return clean ? value + clean : undefined;
}
