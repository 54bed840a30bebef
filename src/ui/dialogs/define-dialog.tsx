/**
 * Declares a dialog by its parts. Every dialog is drawn in the same frame (frame.tsx), so a dialog
 * file says only what is its own: its keys, title, colour, footer, and a body that is either lines
 * (they scroll, and their count bounds the scroll) or a pane of its own (a form, a live view). The
 * root still sees `{kind, onKey, render}` (dialog.ts); the frame is written once, here.
 */
import type { Key } from 'ink';
import type { ReactNode } from 'react';
import { Text } from '../components/safe-text.js';
import type { Line } from '../components/scroll-text.js';
import type { DispatchContext } from '../context.js';
import { toneColor } from '../theme.js';
import type { DialogLinesInput, DialogModule, DialogViewProps } from './dialog.js';
import type { DialogKind, DialogStates } from './dialog-types.js';
import { DialogFrame, DialogLines, type FrameTone } from './frame.js';

interface DialogParts<D> {
  /** Keys are text for a field while it is open (a multi-key read is a paste); default: commands. */
  typing?: boolean;
  onKey(ctx: DispatchContext, d: D, input: string, key: Key): void;
  title(d: D): string;
  /** The frame's colour; default: accent. */
  tone?(d: D): FrameTone;
  /** The line under the body: a string is a dim key hint; else a question or a text field. */
  footer(p: DialogViewProps<D>): ReactNode;
  /**
   * The state once this state has been drawn (committed to the terminal's frame) — undefined: no
   * change. A consent dialog opens its answer field here, so keys typed ahead of the plan (a paste,
   * a burst over a laggy link) cannot answer a question nobody has seen.
   */
  onShown?(d: D): D | undefined;
  /**
   * Quit (q, Ctrl-C, SIGTERM, SIGHUP) while the action this dialog shows is running: the state that
   * asks whether to stop it between steps — undefined: nothing to ask here.
   */
  onStopAsked?(d: D): D | undefined;
}

type DialogBody<D> =
  | {
      /** A body of lines, scrolled by the dialog's scroll offset. */
      lines(p: DialogLinesInput<D>): Line[];
    }
  | {
      /** A body of its own, drawn as a component (it may subscribe to the store). */
      Body(p: DialogViewProps<D>): ReactNode;
    };

export function defineDialog<K extends DialogKind>(
  kind: K,
  spec: DialogParts<DialogStates[K]> & DialogBody<DialogStates[K]>,
): DialogModule<K> {
  const render = (p: DialogViewProps<DialogStates[K]>) => {
    const footer = spec.footer(p);
    return (
      <DialogFrame
        title={spec.title(p.d)}
        tone={spec.tone?.(p.d) ?? 'accent'}
        view={p}
        footer={
          typeof footer === 'string' ? (
            <Text color={toneColor(p.theme, 'dim')} wrap="truncate">
              {footer}
            </Text>
          ) : (
            footer
          )
        }
      >
        {'lines' in spec ? (
          <DialogLines lines={spec.lines(p)} offset={p.scroll} view={p} />
        ) : (
          <spec.Body {...p} />
        )}
      </DialogFrame>
    );
  };
  return {
    kind,
    typing: spec.typing ?? false,
    onKey: spec.onKey,
    ...(spec.onShown ? { onShown: spec.onShown } : {}),
    ...(spec.onStopAsked ? { onStopAsked: spec.onStopAsked } : {}),
    render,
    ...('lines' in spec ? { lineCount: (p: DialogLinesInput<DialogStates[K]>) => spec.lines(p).length } : {}),
  };
}
