/**
 * What a key handler works with (the root dispatcher, the dialogs' `onKey`, the wizard): the UI
 * store, the app's backend and the view as shown. Small helpers every handler shares live here too.
 */
import type { Key } from 'ink';
import type { ConsoleBackend } from '../app/backend.js';
import type { Column, TableRow } from './components/table-types.js';
import type { UiState, UiStore } from './view-store.js';

export interface DispatchContext {
  ui: UiStore;
  backend: ConsoleBackend;
  /** The current view's rows as shown (filtered and sorted). */
  rows: readonly TableRow[];
  columns: readonly Column[];
  /** Rows per page in the body. */
  pageSize: number;
  /** Largest useful scroll offset of the detail/dialog shown (unknown: unbounded). */
  scrollMax?: number;
  hostname: string;
  exit(): void;
  /** The running action's abort switch (stops between steps, never mid-command). */
  running: { controller?: AbortController | undefined };
}

export function flash(ctx: DispatchContext, text: string, tone: 'ok' | 'warn' | 'bad' = 'warn'): void {
  ctx.ui.setState({ flash: { text, tone } });
}

export function closeDialog(ctx: DispatchContext, extra: Partial<UiState> = {}): void {
  ctx.ui.setState({ mode: 'normal', dialog: undefined, input: '', ...extra });
}

/** Scrolls the detail or dialog shown by the key's step, clamped to what it has. */
export function scroll(ctx: DispatchContext, key: Key): void {
  const s = ctx.ui.getState();
  const step = key.pageDown
    ? ctx.pageSize
    : key.pageUp
      ? -ctx.pageSize
      : key.downArrow
        ? 1
        : key.upArrow
          ? -1
          : 0;
  const max = ctx.scrollMax ?? Number.POSITIVE_INFINITY;
  if (step) ctx.ui.setState({ detailScroll: Math.max(0, Math.min(max, s.detailScroll + step)) });
}
