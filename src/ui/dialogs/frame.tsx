/** The frame every dialog is drawn in: a rounded border in the dialog's tone, a title, the body, one footer line. */
import { Box } from 'ink';
import type { ReactNode } from 'react';
import { Text } from '../components/safe-text.js';
import { type Line, ScrollText } from '../components/scroll-text.js';
import { toneColor } from '../theme.js';
import type { DialogViewProps } from './dialog.js';

/** The part of a dialog's view props the frame is sized and coloured by. */
type FrameView = Pick<DialogViewProps<unknown>, 'theme' | 'width' | 'height'>;

export function DialogFrame(props: {
  title: string;
  tone: 'accent' | 'warn' | 'bad' | 'ok';
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

/** A dialog whose body is lines that scroll (help, plan, progress, outcome). */
export function LinesDialog(props: {
  title: string;
  tone: 'accent' | 'warn' | 'bad' | 'ok';
  footer: ReactNode;
  lines: Line[];
  offset: number;
  view: Pick<DialogViewProps<unknown>, 'theme' | 'width' | 'height' | 'bodyHeight' | 'bodyWidth'>;
}) {
  const { view } = props;
  return (
    <DialogFrame title={props.title} tone={props.tone} view={view} footer={props.footer}>
      <ScrollText
        lines={props.lines}
        height={view.bodyHeight}
        width={view.bodyWidth}
        offset={props.offset}
        theme={view.theme}
      />
    </DialogFrame>
  );
}
