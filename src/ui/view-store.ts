/**
 * The console's own state (view, cursor, filter, marks, mode, dialogs), kept apart from the node
 * store so a refresh never re-renders what did not change (docs/architecture.md#store-discipline). The cursor remembers the row's
 * fingerprint, never its index: a re-sort or refresh keeps the admin on the same session.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Selection } from '../app/backend.js';
import type { Dialog, DialogStates } from './dialogs/dialog-types.js';
import { VIEW_IDS, type ViewId } from './views/registry.js';
import type { DoctorFeed } from './views/view.js';

export { VIEW_IDS, type ViewId };

/** Explicit input modes: one root dispatcher resolves keys by mode (docs/architecture.md#explicit-input-modes). */
type Mode = 'normal' | 'filter' | 'command' | 'confirm' | 'busy' | 'wizard';

export interface Cursor {
  key?: string;
  /** Where the cursor was, used when its row disappears (clamped). */
  index: number;
}

export interface UiState {
  view: ViewId;
  /** Previously shown views, for `-` (k9s "like cd -"). */
  history: ViewId[];
  /** Session shown in the detail pane (by fingerprint). */
  detail?: string;
  detailScroll: number;
  cursor: Record<ViewId, Cursor>;
  filter: Record<ViewId, string>;
  sort: Record<ViewId, { column: string; desc: boolean } | undefined>;
  /** Marked rows (fingerprints) of the current view; actions apply to all of them. */
  marks: string[];
  mode: Mode;
  /** Text being typed in filter or command mode. */
  input: string;
  /** Index into the palette completions. */
  completion: number;
  dialog?: Dialog;
  write: boolean;
  dryRun: boolean;
  /** One-line message under the body (errors, "read-only", hints); a passing one ends at `until` (console clock, ms). */
  flash?: { text: string; tone: 'ok' | 'warn' | 'bad'; until?: number };
  /** Selections the last dialog was opened for (focus after the action). */
  lastSelections?: Selection[];
  /** CHAP values from the wizard for the next apply only (cleared after it; never rendered). */
  pendingSecrets?: Record<string, string>;
  /** Bumped by ctrl-r: views that run commands (doctor) re-run on it. */
  refreshToken: number;
  /** The Doctor view's last run (views/doctor.tsx useDoctorFeed); undefined while it runs. */
  doctor?: DoctorFeed;
  /** The wizard's target, so the console can end on the new session's detail. */
  attachTarget?: { iqn: string; portal: string };
  /** The wizard's form while its attach runs; kept after a failure so reopening restores it. */
  wizardDraft?: DialogStates['wizard'];
}

function perView<T>(make: () => T): Record<ViewId, T> {
  return Object.fromEntries(VIEW_IDS.map((v) => [v, make()])) as Record<ViewId, T>;
}

function initialUiState(opts: { write: boolean; dryRun: boolean; view?: ViewId }): UiState {
  return {
    view: opts.view ?? 'sessions',
    history: [],
    detailScroll: 0,
    cursor: perView(() => ({ index: 0 })),
    filter: perView(() => ''),
    sort: perView(() => undefined),
    marks: [],
    mode: 'normal',
    input: '',
    completion: 0,
    refreshToken: 0,
    write: opts.write,
    dryRun: opts.dryRun,
  };
}

export type UiStore = StoreApi<UiState>;

export function createUiStore(opts: { write: boolean; dryRun: boolean; view?: ViewId }): UiStore {
  return createStore<UiState>(() => initialUiState(opts));
}

/** Switches view, remembering the previous one; marks belong to a view, so they are cleared. */
export function switchView(s: UiState, view: ViewId): Partial<UiState> {
  if (view === s.view && s.detail === undefined) return {};
  return {
    view,
    history: view === s.view ? s.history : [...s.history.slice(-19), s.view],
    detail: undefined,
    marks: view === s.view ? s.marks : [],
  };
}
