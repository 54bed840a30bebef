/**
 * The shape of a registered dialog: `{kind, onKey, render}` plus what the root needs to know of it.
 * A dialog file declares its state (merged into dialog-types.ts) and its parts (define-dialog.tsx
 * builds this shape from them); the dispatcher and the body only look it up in dialogs/registry.ts.
 */
import type { Key } from 'ink';
import type { ReactNode } from 'react';
import type { ConsoleBackend } from '../../app/backend.js';
import type { DispatchContext } from '../context.js';
import type { Theme } from '../theme.js';
import type { DialogKind, DialogStates } from './dialog-types.js';

/** What a dialog is drawn from (the UI state it may show comes as plain values). */
export interface DialogViewProps<D> {
  d: D;
  write: boolean;
  dryRun: boolean;
  /** The body's scroll offset. */
  scroll: number;
  backend: ConsoleBackend;
  theme: Theme;
  hostname: string;
  /** The whole pane (the frame's border, title and footer take 4 lines and 4 columns of it). */
  width: number;
  height: number;
  /** Room for the body inside the frame. */
  bodyHeight: number;
  bodyWidth: number;
}

/** What a dialog's line count depends on (for clamping its scroll). */
export type DialogLinesInput<D> = Pick<
  DialogViewProps<D>,
  'd' | 'write' | 'dryRun' | 'backend' | 'hostname' | 'bodyWidth'
>;

export interface DialogModule<K extends DialogKind = DialogKind> {
  kind: K;
  /** Keys are text for a field while it is open (a multi-key read is a paste, not key presses). */
  typing: boolean;
  onKey(ctx: DispatchContext, d: DialogStates[K], input: string, key: Key): void;
  /** The state once `d` has been drawn (define-dialog.tsx `onShown`); undefined: no change. */
  onShown?(d: DialogStates[K]): DialogStates[K] | undefined;
  /** The state that asks whether to stop the running action (define-dialog.tsx `onStopAsked`). */
  onStopAsked?(d: DialogStates[K]): DialogStates[K] | undefined;
  /** A component: the dialog in its frame. */
  render(props: DialogViewProps<DialogStates[K]>): ReactNode;
  /** Lines of a scrollable body; unset: the scroll is not clamped. */
  lineCount?(props: DialogLinesInput<DialogStates[K]>): number;
}
