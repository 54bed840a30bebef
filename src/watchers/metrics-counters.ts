/**
 * What `serve` counts from the live watcher, for the exporter's counters (docs/metrics.md):
 * events by kind and severity, session state changes by session, failed reads by source, and
 * whether the last read failed (for /healthz). Fed by every event the store publishes, counted by
 * event id, so the store's capped event ring loses none between two scrapes.
 */
import type { Snapshot } from '../engine/model.js';
import { FILE_WATCH_FAILED, isSessionStateMove, POLL_FAILED, READ_FAILED, READ_WORKS } from './events.js';
import type { NodeStore } from './store.js';
import type { EventKind, NodeEvent, Severity } from './types.js';

const KINDS: Record<EventKind, true> = {
  portal: true,
  session: true,
  device: true,
  multipath: true,
  mount: true,
  kubelet: true,
  record: true,
  action: true,
  watcher: true,
};
const SEVERITIES: Severity[] = ['info', 'warn', 'error'];

/** Read failures by the source the watcher names (every source present from the start, at 0). */
const READ_SOURCES: Record<string, string> = {
  [READ_FAILED]: 'read',
  [POLL_FAILED]: 'poll',
  [FILE_WATCH_FAILED]: 'file-watch',
};

interface SessionChangeCount {
  target: string;
  portal: string;
  iface: string;
  count: number;
}

export interface MetricsCounters {
  events(): { kind: string; severity: string; count: number }[];
  stateChanges(): SessionChangeCount[];
  readErrors(): Record<string, number>;
  /** Why the last read failed, while it has not worked again. */
  lastReadError(): string | undefined;
  stop(): void;
}

/** The session a key names: from the snapshot when it is there, else split (`target|portal|iface`). */
function sessionOf(key: string, snap: Snapshot | undefined): Omit<SessionChangeCount, 'count'> {
  const s = snap?.sessions.find((x) => x.key === key);
  if (s) return { target: s.targetIqn, portal: s.portal, iface: s.iface };
  const parts = key.split('|');
  const iface = parts.pop() ?? '';
  const portal = parts.pop() ?? '';
  return { target: parts.join('|'), portal, iface };
}

/** Starts counting the store's events; `maxSessions` bounds the per-session counters. */
export function countWatcherEvents(store: NodeStore, maxSessions: number): MetricsCounters {
  const events = new Map<string, number>();
  for (const k of Object.keys(KINDS)) for (const s of SEVERITIES) events.set(`${k}\0${s}`, 0);
  const changes = new Map<string, SessionChangeCount>();
  const errors: Record<string, number> = Object.fromEntries(Object.values(READ_SOURCES).map((s) => [s, 0]));
  let lastError: string | undefined;
  let lastId = 0;

  const count = (e: NodeEvent, snap: Snapshot | undefined) => {
    const key = `${e.kind}\0${e.severity}`;
    events.set(key, (events.get(key) ?? 0) + 1);
    if (isSessionStateMove(e)) {
      let c = changes.get(e.subject);
      if (!c && changes.size < maxSessions) {
        c = { ...sessionOf(e.subject, snap), count: 0 };
        changes.set(e.subject, c);
      }
      if (c) c.count++;
    }
    if (e.kind !== 'watcher' || e.transition === undefined) return;
    const source = READ_SOURCES[e.transition];
    if (source) errors[source] = (errors[source] ?? 0) + 1;
    if (e.transition === READ_FAILED) lastError = e.message;
    if (e.transition === READ_WORKS) lastError = undefined;
  };

  const take = () => {
    const st = store.getState();
    // Newest last; walk back to the first unseen id (the ring keeps the newest).
    let i = st.events.length;
    while (i > 0 && st.events[i - 1]!.id > lastId) i--;
    for (; i < st.events.length; i++) count(st.events[i]!, st.snapshot);
    if (st.events.length > 0) lastId = Math.max(lastId, st.events[st.events.length - 1]!.id);
  };
  take();
  const unsubscribe = store.subscribe(take);
  return {
    events: () =>
      [...events].map(([k, count]) => {
        const [kind, severity] = k.split('\0') as [string, string];
        return { kind, severity, count };
      }),
    stateChanges: () => [...changes.values()],
    readErrors: () => ({ ...errors }),
    lastReadError: () => lastError,
    stop: unsubscribe,
  };
}
