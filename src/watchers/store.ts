/**
 * The node store: one zustand *vanilla* store (no React; docs/architecture.md#a-store-outside-react) that the watchers
 * write and the console reads with selectors. Writers queue changes; subscribers see them at most
 * `maxHz` times a second (docs/architecture.md#render-and-update-budget: coalesce engine updates in the store rather than letting Ink drop
 * frames), so a burst of uevents or a 1,000-session refresh costs the UI one render.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Snapshot } from '../engine/model.js';
import { diffSnapshots } from './diff.js';
import { type Pacer, realPacer } from './pacer.js';
import { shareSnapshot } from './share.js';
import type { EventDraft, NodeEvent, NodeState, TrackedAction } from './types.js';

interface NodeStoreOptions {
  /** Ring buffer size (default 2,000). */
  eventCap?: number;
  /** Upper bound of publications per second (default 10). */
  maxHz?: number;
  /** Clock for event timestamps (the host's: the simulator's may run ahead). */
  now?: () => number;
  /** Finished actions kept for display (default 50). */
  actionCap?: number;
  /** Errors kept in health (default 20). */
  errorCap?: number;
  /** What paces publications (default: real timers). Tests drive it by hand, without real waiting. */
  pacer?: Pacer;
}

interface ApplyOptions {
  /**
   * Drops diff events already published another way (the watcher's probe announces a state change
   * before the snapshot that carries it is read: probe-diff.ts probeEvents).
   */
  drop?: (event: EventDraft) => boolean;
}

/** The store plus the writer side the watchers use. Readers use only the zustand StoreApi part. */
export interface NodeStore extends StoreApi<NodeState> {
  /** Queues a change computed from the latest (possibly unpublished) state. */
  update(recipe: (state: NodeState) => Partial<NodeState>): void;
  /** Publishes queued changes now (stop, tests, end of a command). */
  flush(): void;
  /**
   * Takes a fresh snapshot in: unchanged sessions (and other rows) keep their previous object,
   * the diff and its events are recorded. Returns the events it produced.
   */
  applySnapshot(next: Snapshot, options?: ApplyOptions): NodeEvent[];
  /** Appends events to the ring buffer (numbered here, never reused). */
  pushEvents(drafts: readonly EventDraft[]): NodeEvent[];
  /** Marks work in progress; call the returned function once when done. */
  beginBusy(): () => void;
  /** Adds or replaces a tracked action (by id). */
  putAction(action: TrackedAction): void;
  /** Records a watcher error in health (capped). */
  recordError(message: string): void;
  /** Stops the publication timer; queued changes are published first. */
  dispose(): void;
}

const DEFAULT_EVENT_CAP = 2_000;

/** The state of a node nobody has read yet. */
function initialNodeState(): NodeState {
  return {
    events: [],
    actions: [],
    health: { refreshCount: 0, errors: [], sources: [] },
    busy: 0,
  };
}

/** Creates the node store. Nothing is read here: the watcher feeds it. */
export function createNodeStore(options: NodeStoreOptions = {}): NodeStore {
  const eventCap = options.eventCap ?? DEFAULT_EVENT_CAP;
  const minGapMs = 1000 / (options.maxHz ?? 10);
  const now = options.now ?? Date.now;
  const actionCap = options.actionCap ?? 50;
  const errorCap = options.errorCap ?? 20;
  const pacer = options.pacer ?? realPacer;
  const api = createStore<NodeState>()(() => initialNodeState());

  // Writers work on `pending`; `api` holds what subscribers have seen.
  let pending: NodeState | undefined;
  let cancelTimer: (() => void) | undefined;
  let lastPublish = Number.NEGATIVE_INFINITY;
  let nextEventId = 1;

  const latest = (): NodeState => pending ?? api.getState();

  function flush(): void {
    cancelTimer?.();
    cancelTimer = undefined;
    if (!pending) return;
    const next = pending;
    pending = undefined;
    lastPublish = pacer.now();
    api.setState(next, true);
  }

  function schedule(): void {
    if (cancelTimer) return;
    const wait = Math.max(0, lastPublish + minGapMs - pacer.now());
    cancelTimer = pacer.after(wait, flush);
  }

  function update(recipe: (state: NodeState) => Partial<NodeState>): void {
    const base = latest();
    pending = { ...base, ...recipe(base) };
    schedule();
  }

  function pushEvents(drafts: readonly EventDraft[]): NodeEvent[] {
    if (drafts.length === 0) return [];
    const at = now();
    const made = drafts.map((d) => ({ ...d, id: nextEventId++, at: d.at ?? at }));
    update((s) => {
      const all = s.events.concat(made);
      return { events: all.length > eventCap ? all.slice(all.length - eventCap) : all };
    });
    return made;
  }

  function applySnapshot(next: Snapshot, options: ApplyOptions = {}): NodeEvent[] {
    // A partial snapshot (the console's first look, first-look.ts) is no predecessor: the first
    // full read after it is the first read, with no diff and no events (console-startup edit).
    const prev = latest().snapshot?.partial ? undefined : latest().snapshot;
    const shared = shareSnapshot(prev, next);
    if (!prev) {
      update(() => ({ snapshot: shared }));
      return [];
    }
    const { diff, events } = diffSnapshots(prev, shared);
    update(() => ({ snapshot: shared, diff }));
    const drop = options.drop;
    return pushEvents(drop ? events.filter((e) => !drop(e)) : events);
  }

  function beginBusy(): () => void {
    update((s) => ({ busy: s.busy + 1 }));
    let done = false;
    return () => {
      if (done) return;
      done = true;
      update((s) => ({ busy: Math.max(0, s.busy - 1) }));
    };
  }

  function putAction(action: TrackedAction): void {
    update((s) => {
      const others = s.actions.filter((a) => a.id !== action.id);
      const all = [...others, action];
      // Drop the oldest finished runs first; running ones always stay visible.
      while (all.length > actionCap) {
        const i = all.findIndex((a) => a.finishedAt !== undefined);
        if (i < 0) break;
        all.splice(i, 1);
      }
      return { actions: all };
    });
  }

  function recordError(message: string): void {
    update((s) => ({
      health: { ...s.health, errors: [...s.health.errors, message].slice(-errorCap) },
    }));
  }

  return {
    ...api,
    update,
    flush,
    applySnapshot,
    pushEvents,
    beginBusy,
    putAction,
    recordError,
    dispose: flush,
  };
}
