/** The frame every dialog is drawn in: a rounded border in the dialog's tone, a title, the body, one footer line. */
import { Box } from 'ink';
import type { ReactNode } from 'react';
import { Text } from '../components/safe-text.js';
import { type Theme, toneColor } from '../theme.js';

export function DialogFrame(props: {
  title: string;
  tone: 'accent' | 'warn' | 'bad' | 'ok';
  theme: Theme;
  width: number;
  height: number;
  footer: ReactNode;
  children: ReactNode;
}) {
  const { theme, tone, height, width } = props;
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
