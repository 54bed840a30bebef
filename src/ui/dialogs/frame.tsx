/** The frame every dialog is drawn in: a rounded border in the dialog's tone, a title, the body, one footer line. */
import { Box } from 'ink';
import type { ReactNode } from 'react';
import { Text } from '../components/safe-text.js';
import { type Line, ScrollText } from '../components/scroll-text.js';
import { toneColor } from '../theme.js';
import type { DialogViewProps } from './dialog.js';

/** A dialog's colour: accent, or how much is at stake (a risky plan, a failed run). */
export type FrameTone = 'accent' | 'warn' | 'bad' | 'ok';

/** The part of a dialog's view props the frame is sized and coloured by. */
type FrameView = Pick<DialogViewProps<unknown>, 'theme' | 'width' | 'height'>;

export function DialogFrame(props: {
  title: string;
  tone: FrameTone;
  view: FrameView;
  footer: ReactNode;
  children: ReactNode;
}) {
  const { tone } = props;
  const { theme, height, width } = props.view;
  const inner = Math.max(1, height - 2);
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={toneColor(theme, tone)}
      height={height}
      width={width}
      paddingX={1}
      overflow="hidden"
    >
      <Text bold wrap="truncate" color={toneColor(theme, tone)}>
        {props.title}
      </Text>
      <Box height={Math.max(1, inner - 2)} flexDirection="column" overflow="hidden">
        {props.children}
      </Box>
      <Box height={1}>{props.footer}</Box>
    </Box>
  );
}

/** A body of lines, in the room inside the frame, from line `offset` on. */
export function DialogLines(props: {
  lines: readonly Line[];
  offset: number;
  view: Pick<DialogViewProps<unknown>, 'theme' | 'bodyHeight' | 'bodyWidth'>;
}) {
  const { lines, offset, view } = props;
  return (
    <ScrollText
      lines={lines}
      offset={offset}
      height={view.bodyHeight}
      width={view.bodyWidth}
      theme={view.theme}
    />
  );
}
