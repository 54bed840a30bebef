/**
 * Names the sessions behind a sysfs probe change, so the watcher can re-read just those
 * (refreshSnapshot, src/engine/snapshot/incremental.ts). A disk's state belongs to the session on
 * its SCSI host (software iSCSI: one host per session, `H` of `H:C:T:L`). Anything the probe cannot
 * pin on a session — an object added or removed, a disk on a host no session claims — is structural:
 * the full snapshot is read.
 */
import type { ScsiDevice, Session, Snapshot } from '../engine/model.js';
import type { ChangedSessions } from '../engine/snapshot/index.js';
import { deviceStateEvent, sessionStateEvent } from './events.js';
import { type ProbeDetail, sameList } from './sysfs-probe.js';
import type { EventDraft } from './types.js';

const SESSION = /^session(\d+)$/;

/** True when two probes saw the same objects in the same states (what the fingerprint compared). */
export function sameProbe(a: ProbeDetail, b: ProbeDetail): boolean {
  return (
    sameList(a.deviceStates, b.deviceStates) &&
    sameList(a.sessionStates, b.sessionStates) &&
    sameList(a.hctls, b.hctls) &&
    sameList(a.sessions, b.sessions) &&
    sameList(a.blocks, b.blocks)
  );
}

const STRUCTURAL: ChangedSessions = { sids: [], structural: true };

/** What changed from probe `prev` to probe `next` (see the file comment). */
export function diffProbes(prev: ProbeDetail, next: ProbeDetail): ChangedSessions {
  if (
    !sameList(prev.hctls, next.hctls) ||
    !sameList(prev.sessions, next.sessions) ||
    !sameList(prev.sessionHosts, next.sessionHosts) ||
    !sameList(prev.blocks, next.blocks)
  )
    return STRUCTURAL;
  const hosts = new Set<number>();
  next.hctls.forEach((hctl, i) => {
    if (next.deviceStates[i] !== prev.deviceStates[i]) hosts.add(Number(hctl.slice(0, hctl.indexOf(':'))));
  });
  const sids: number[] = [];
  // Offload HBAs (bnx2i, qla4xxx) put several sessions on one host: each of them is re-read.
  const claimed = new Set<number>();
  for (let j = 0; j < next.sessions.length; j++) {
    const h = next.sessionHosts[j];
    const owns = h !== undefined && hosts.has(h);
    if (owns) claimed.add(h);
    if (!owns && next.sessionStates[j] === prev.sessionStates[j]) continue;
    const sid = Number(SESSION.exec(next.sessions[j]!)?.[1]);
    if (!Number.isInteger(sid)) return STRUCTURAL;
    sids.push(sid);
  }
  // A disk changed on a host no session owns (or owns unresolved): cannot say whose.
  for (const h of hosts) if (!claimed.has(h)) return STRUCTURAL;
  return { sids, structural: false };
}

/** A raw attribute as the snapshot keeps it (attr.ts cleanAttr): trimmed; empty and `(null)` absent. */
function clean(raw: string): string | undefined {
  const v = raw.trim();
  return v === '' || v === '(null)' ? undefined : v;
}

/** A state change published from a probe, with the state it announced. */
export interface Announcement {
  event: EventDraft;
  /** The new state as announced (the snapshot that carries the change should show it). */
  to: string;
}

/**
 * The state events a probe already proves, before the snapshot that will carry them is read: a disk
 * whose `state` moved, a session whose `state` was read (some disk of it not running) and moved.
 * Built by the constructors the snapshot diff uses (events.ts), so each has the identity of the
 * diff's event for the same transition between `snapshot` (the last one read) and the next: the
 * watcher drops that later copy (announcer.ts) and a change is on screen one refresh earlier
 * (bench/README.md: ~0.3–1.5 s at 1,000 sessions). Objects the snapshot does not hold (added since)
 * are left to the snapshot's own diff.
 */
export function probeEvents(snapshot: Snapshot, detail: ProbeDetail): Announcement[] {
  const out: Announcement[] = [];
  let byHctl: Map<string, ScsiDevice> | undefined;
  for (let i = 0; i < detail.hctls.length; i++) {
    const raw = detail.deviceStates[i]!;
    if (raw === '' || raw === '-') continue;
    byHctl ??= devicesByHctl(snapshot);
    const d = byHctl.get(detail.hctls[i]!);
    const state = clean(raw);
    if (!d || state === undefined || state === d.state) continue;
    out.push({ event: deviceStateEvent(d, d.state, state), to: state });
  }
  let byName: Map<string, Session> | undefined;
  for (let j = 0; j < detail.sessions.length; j++) {
    const raw = detail.sessionStates[j]!;
    if (raw === '' || raw === '-') continue;
    byName ??= new Map(snapshot.sessions.map((s) => [s.name, s]));
    const s = byName.get(detail.sessions[j]!);
    const state = clean(raw);
    if (!s || state === undefined || state === s.state) continue;
    out.push({ event: sessionStateEvent(s, s.state, state), to: state });
  }
  return out;
}

/**
 * Announcements the snapshot read after them did not confirm: the state moved again before the
 * read (offline and back within a tick). The timeline then says so — from the announced state to
 * the one read — so it never ends on a state the snapshot does not show. Objects gone from the
 * snapshot are the diff's to report.
 */
export function settleAnnouncements(snapshot: Snapshot, unconfirmed: readonly Announcement[]): EventDraft[] {
  const out: EventDraft[] = [];
  const { sessions, devices } = byKey(snapshot);
  for (const a of unconfirmed) {
    if (a.event.kind === 'device') {
      const d = devices.get(a.event.subject)?.device;
      if (d && d.state !== a.to) out.push(deviceStateEvent(d, a.to, d.state));
    } else {
      const s = sessions.get(a.event.subject);
      if (s && s.state !== a.to) out.push(sessionStateEvent(s, a.to, s.state));
    }
  }
  return out;
}

/** Sids of the sessions announcements are about (a disk's session, or the session itself). */
export function announcedSessions(snapshot: Snapshot, announcements: readonly Announcement[]): number[] {
  const { sessions, devices } = byKey(snapshot);
  const out: number[] = [];
  for (const a of announcements) {
    const s = sessions.get(a.event.subject) ?? devices.get(a.event.subject)?.session;
    if (s) out.push(s.sid);
  }
  return out;
}

/** Sessions and disks of a snapshot by key (the subjects of their events). */
function byKey(snapshot: Snapshot): {
  sessions: Map<string, Session>;
  devices: Map<string, { device: ScsiDevice; session: Session }>;
} {
  const sessions = new Map<string, Session>();
  const devices = new Map<string, { device: ScsiDevice; session: Session }>();
  for (const session of snapshot.sessions) {
    sessions.set(session.key, session);
    for (const device of session.devices) devices.set(device.key, { device, session });
  }
  return { sessions, devices };
}

function devicesByHctl(snapshot: Snapshot): Map<string, ScsiDevice> {
  const out = new Map<string, ScsiDevice>();
  for (const s of snapshot.sessions) for (const d of s.devices) out.set(d.hctl, d);
  return out;
}
