/**
 * The console's own state (view, cursor, filter, marks, mode, dialogs), kept apart from the node
 * store so a refresh never re-renders what did not change (docs/architecture.md#store-discipline). The cursor remembers the row's
 * fingerprint, never its index: a re-sort or refresh keeps the admin on the same session.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApplyResult, Plan, StepProgress } from '../engine/actions/types.js';
import type { Selection } from './backend.js';
import type { WizardState } from './wizard/wizard-state.js';

export const VIEW_IDS = [
  'sessions',
  'targets',
  'volumes',
  'devices',
  'records',
  'events',
  'journal',
  'doctor',
] as const;
export type ViewId = (typeof VIEW_IDS)[number];

/** Explicit input modes: one root dispatcher resolves keys by mode (docs/architecture.md#explicit-input-modes). */
export type Mode = 'normal' | 'filter' | 'command' | 'confirm' | 'busy' | 'wizard';

export interface Cursor {
  key?: string;
  /** Where the cursor was, used when its row disappears (clamped). */
  index: number;
}

export type Dialog =
  | { kind: 'help' }
  | {
      kind: 'plan';
      plan: Plan;
      typed: string;
      error?: string;
      /** The override step is open: the refusals it lifts are listed and its own token is asked. */
      override?: boolean;
    }
  | {
      kind: 'progress';
      plan: Plan;
      steps: StepProgress[];
      stopRequested: boolean;
      askQuit: boolean;
      /** Leave the console once the action has stopped (SIGTERM while it ran). */
      quitAfter: boolean;
      /** Stops the run between steps (never mid-command). */
      controller: AbortController;
    }
  | { kind: 'outcome'; plan: Plan; result: ApplyResult }
  | { kind: 'write'; typed: string }
  | WizardState;

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
  /** One-line message under the body (errors, "read-only", hints). */
  flash?: { text: string; tone: 'ok' | 'warn' | 'bad' };
  /** Selections the last dialog was opened for (focus after the action). */
  lastSelections?: Selection[];
  /** CHAP values from the wizard for the next apply only (cleared after it; never rendered). */
  pendingSecrets?: Record<string, string>;
  /** Bumped by ctrl-r: views that run commands (doctor) re-run on it. */
  refreshToken: number;
  /** The wizard's target, so the console can end on the new session's detail. */
  attachTarget?: { iqn: string; portal: string };
  /** The wizard's form while its attach runs; kept after a failure so reopening restores it. */
  wizardDraft?: WizardState;
}

function perView<T>(make: () => T): Record<ViewId, T> {
  return Object.fromEntries(VIEW_IDS.map((v) => [v, make()])) as Record<ViewId, T>;
}

export function initialUiState(opts: { write: boolean; dryRun: boolean; view?: ViewId }): UiState {
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
