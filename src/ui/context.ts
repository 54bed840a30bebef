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
  /** The console's clock (ms), for flashes that last a short time; unset: the wall clock. */
  now?(): number;
  /**
   * Re-reads `rows` and `columns` when a key changed the view, filter or sort: the keys after it
   * in the same read (`2jjd` typed fast) apply to the view they were typed for, not the one drawn.
   */
  sync?(): void;
}

/** How long a passing hint ("unknown key") stays on the prompt line when no key follows. */
export const SHORT_FLASH_MS = 3000;

/**
 * A one-line message on the prompt line, until the next key; with `forMs`, also gone once that
 * much time has passed on the console's clock (a passing hint, not an error to read).
 */
export function flash(
  ctx: DispatchContext,
  text: string,
  tone: 'ok' | 'warn' | 'bad' = 'warn',
  forMs?: number,
): void {
  const until = forMs === undefined ? undefined : (ctx.now ?? Date.now)() + forMs;
  ctx.ui.setState({ flash: { text, tone, ...(until === undefined ? {} : { until }) } });
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

/** The keys that scroll a detail or a dialog: ↑↓ j k PgUp PgDn, g/Home, G/End. */
function scrollKeys(ctx: DispatchContext, input: string, key: Key): void {
  if (input === 'g' || key.home) ctx.ui.setState({ detailScroll: 0 });
  else if (input === 'G' || key.end) ctx.ui.setState({ detailScroll: ctx.scrollMax ?? 0 });
  else if (input === 'j' || input === 'k')
    scroll(ctx, { ...key, downArrow: input === 'j', upArrow: input === 'k' });
  else scroll(ctx, key);
}

/**
 * The keys of a dialog that only shows lines (help, JSON, a journal entry, an outcome): esc, ⏎ and
 * `closers` close it, and `onClose` says what else closing changes; every other key scrolls it.
 */
export function scrollOrClose<D>(
  closers: readonly string[],
  onClose?: (ctx: DispatchContext, d: D) => Partial<UiState>,
): (ctx: DispatchContext, d: D, input: string, key: Key) => void {
  return (ctx, d, input, key) => {
    if (key.escape || key.return || closers.includes(input)) closeDialog(ctx, onClose?.(ctx, d));
    else scrollKeys(ctx, input, key);
  };
}
