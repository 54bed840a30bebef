/**
 * The console's Text: Ink's, with every string child escaped by the engine's safeText first.
 * Ink passes SGR colour codes (and more) in a string straight to the terminal, and the strings
 * shown here are node-sourced (target names, kubelet dir names, errors quoting them), so no view
 * draws a raw control character. Every view imports Text from here, never from Ink; the table
 * escapes its cells in padCell instead (its rows are the hot path of a frame).
 */
import { Text as InkText, type TextProps } from 'ink';
import type { ReactNode } from 'react';
import { safeText } from '../../app/domain.js';

function clean(c: ReactNode): ReactNode {
  if (typeof c === 'string') return safeText(c);
  if (Array.isArray(c)) return c.map(clean);
  return c;
}

export function Text(props: TextProps) {
  return <InkText {...props}>{clean(props.children)}</InkText>;
}
