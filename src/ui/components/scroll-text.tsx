/** A clipped, scrollable block of pre-built lines (detail pane, plan, help): never taller than `height`. */
import { Box } from 'ink';
import { type Theme, type Tone, toneColor } from '../theme.js';
import { Text } from './safe-text.js';

export interface Line {
  text: string;
  tone?: Tone;
  bold?: boolean;
  /** A shell command: wrapped between its words only (dialogs/wrap-lines.ts). */
  command?: boolean;
}

export function ScrollText(props: {
  lines: readonly Line[];
  height: number;
  width: number;
  offset: number;
  theme: Theme;
}) {
  const { lines, height, width, theme } = props;
  const max = Math.max(0, lines.length - height);
  const offset = Math.max(0, Math.min(props.offset, max));
  const shown = lines.slice(offset, offset + height);
  const more = lines.length > height;
  return (
    <Box flexDirection="column" height={height} width={width} overflow="hidden">
      {shown.map((l, i) => {
        const last = i === shown.length - 1 && more && offset < max;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
          <Text key={i} wrap="truncate" bold={l.bold} color={toneColor(theme, last ? 'dim' : l.tone)}>
            {last ? `… ${lines.length - offset - height + 1} more lines (↓/PgDn)` : l.text || ' '}
          </Text>
        );
      })}
    </Box>
  );
}
