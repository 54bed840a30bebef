/**
 * The poll's early announcements and their bookkeeping. A disk or session state change the probe
 * already proves is published at once (probe-diff.ts probeEvents), ~0.3–1.5 s before the snapshot
 * that carries it at 1,000 sessions (bench/README.md); the snapshot diff's copy is then dropped.
 * Announcement and copy are matched by event identity (kind, subject, transition: events.ts
 * eventIdentity), never by text, so a change of wording cannot report one change twice.
 */
import type { Snapshot } from '../engine/model.js';
import { eventIdentity } from './events.js';
import { type Announcement, announcedSessions, probeEvents, settleAnnouncements } from './probe-diff.js';
import type { ProbeDetail } from './sysfs-probe.js';
import type { EventDraft } from './types.js';

interface Announcer {
  /** The state events `detail` proves against `snapshot` and not yet announced; recorded as announced. */
  announce(snapshot: Snapshot, detail: ProbeDetail): EventDraft[];
  /** For store.applySnapshot: true (drop it) for the diff's copy of an announced event, once. */
  drop: ((event: EventDraft) => boolean) | undefined;
  /**
   * Ends the round once the refresh the poll asked for is in: what it did not confirm (the state
   * moved again before the read) comes back as the move from the announced state to the one read,
   * with the sessions concerned, which the next read cannot trust its probe for. Undefined when
   * everything announced was confirmed (or nothing was read).
   */
  settle(snapshot: Snapshot | undefined): { events: EventDraft[]; sids: number[] } | undefined;
}

export function createAnnouncer(): Announcer {
  const announced = new Map<string, Announcement>();
  const dropCopy = (e: EventDraft) => announced.delete(eventIdentity(e));
  return {
    announce(snapshot, detail) {
      const early = probeEvents(snapshot, detail).filter((a) => !announced.has(eventIdentity(a.event)));
      for (const a of early) announced.set(eventIdentity(a.event), a);
      return early.map((a) => a.event);
    },
    get drop() {
      return announced.size > 0 ? dropCopy : undefined;
    },
    settle(snapshot) {
      const unconfirmed = [...announced.values()];
      announced.clear();
      if (unconfirmed.length === 0 || !snapshot) return undefined;
      return {
        events: settleAnnouncements(snapshot, unconfirmed),
        sids: announcedSessions(snapshot, unconfirmed),
      };
    },
  };
}
