/**
 * The node store's shape: the contract between the watchers (which write it) and the console
 * (which only reads it through selectors). View state (selection, filter, mode) is NOT here: it
 * lives in the UI's own store so node updates never re-render what did not change.
 */
import type { ApplyResult, Plan, StepProgress } from '../engine/actions/types.js';
import type { Snapshot } from '../engine/model.js';

export type EventKind =
  | 'portal'
  | 'session'
  | 'device'
  | 'multipath'
  | 'mount'
  | 'kubelet'
  | 'record'
  | 'action'
  | 'watcher';
export type Severity = 'info' | 'warn' | 'error';

/** One line of the live event log ("session 7 LOGGED_IN→FAILED", "sdc appeared"). */
export interface NodeEvent {
  /** Monotonic id (never reused), so the UI can key rows and tests can wait for "event N". */
  id: number;
  /** ms since epoch (host clock). */
  at: number;
  kind: EventKind;
  severity: Severity;
  /** Fingerprint or path of the object concerned. */
  subject: string;
  /**
   * What moved (`state running→offline`, `appeared`): with kind and subject, the event's identity
   * (events.ts eventIdentity). Matching, never display: the text is `message`.
   */
  transition?: string;
  message: string;
}

/**
 * An event before the store numbers it. `at` defaults to the store clock. Built by events.ts, which
 * words it and names its transition.
 */
export type EventDraft = Omit<NodeEvent, 'id' | 'at' | 'transition'> & { at?: number; transition: string };

/** What changed between two snapshots, by fingerprint. */
export interface SnapshotDiff {
  sessionsAdded: string[];
  sessionsRemoved: string[];
  sessionsChanged: string[];
  devicesAdded: string[];
  devicesRemoved: string[];
}

export interface SourceHealth {
  /** 'sysfs-poll', 'udev', 'kubelet-files', 'node-db', 'mountinfo'. */
  name: string;
  active: boolean;
  detail?: string;
}

interface WatcherHealth {
  /** Host clock, ms: the node was last probed (every poll tick and every read), changed or not. */
  lastPollAt?: number;
  /** Host clock, ms: the node was last read, in full or incrementally (only what moved). */
  lastRefreshAt?: number;
  /** Host clock, ms: the node was last read in full (start, non-poll sources, every `fullRefreshMs`). */
  lastFullReadAt?: number;
  /** How long the last read took, ms. */
  lastRefreshMs?: number;
  refreshCount: number;
  /** Most recent errors (capped). */
  errors: string[];
  sources: SourceHealth[];
}

export interface TrackedAction {
  /** Unique id of this run. */
  id: string;
  plan: Plan;
  steps: StepProgress[];
  startedAt: number;
  finishedAt?: number;
  result?: ApplyResult;
}

export interface NodeState {
  snapshot?: Snapshot;
  diff?: SnapshotDiff;
  /** Ring buffer, oldest first, capped (default 2,000). */
  events: NodeEvent[];
  actions: TrackedAction[];
  health: WatcherHealth;
  /** >0 while the engine is refreshing or applying: tests and PTY e2e wait for 0, as lazygit's
   * https://github.com/jesseduffield/lazygit/blob/master/docs/dev/Busy.md does. */
  busy: number;
}
