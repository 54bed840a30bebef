/**
 * Portal outages: the one home of the rule that tells "the array is down" from "this session is
 * garbage" (docs/status-schema.md#outages). Fed only by what the session read already holds:
 * the session `state`, its connections' `state` and its SCSI devices' `state`.
 *
 * Kernel facts (drivers/scsi/scsi_transport_iscsi.c in torvalds/linux): a session whose connection
 * fails is FAILED and its devices `blocked`; when `recovery_tmo` expires without a re-login the
 * session turns FREE and its devices `transport-offline` (I/O then fails); the connection `state`
 * reads `up`, `down`, `failed` or `bound`. The kernel records no time of failure, so "since" is
 * when this process first read it down (`carryDownTimes` keeps the first sighting across reads).
 */
import type { PortalOutage, Session, Snapshot } from '../model.js';
import { plural } from '../text/plural.js';
import { downWords } from '../text/time.js';
import type { SysfsSession } from './sessions.js';

type SessionStates = Pick<SysfsSession, 'state' | 'connections'>;

/** Connection states of a connection that is not carrying I/O (`bound` is a login in progress). */
const CONNECTION_DOWN = new Set(['down', 'failed']);

/** True when the session is down: FAILED or FREE, or a connection of it is down or failed. */
export function isSessionDown(s: SessionStates): boolean {
  if (s.state === 'FAILED' || s.state === 'FREE') return true;
  for (const c of s.connections) if (c.state !== undefined && CONNECTION_DOWN.has(c.state)) return true;
  return false;
}

/**
 * True when a down session's recovery_tmo has expired: the session is FREE or one of its devices is
 * `transport-offline` (scsi_transport_iscsi.c: session_recovery_timedout sets the devices
 * SDEV_TRANSPORT_OFFLINE and fails their queued and new I/O). Pods get EIO now, not later.
 */
export function isRecoveryExpired(s: SessionStates & Pick<SysfsSession, 'devices'>): boolean {
  if (!isSessionDown(s)) return false;
  if (s.state === 'FREE') return true;
  return s.devices.some((d) => d.state === 'transport-offline');
}

/** The decisive words of an expired recovery, said the same in the banner, reasons, `doctor` and `watch`. */
export const RECOVERY_EXPIRED = 'recovery_tmo expired: the kernel fails I/O';

function count(into: Record<string, number>, value: string | undefined): void {
  if (value === undefined) return;
  into[value] = (into[value] ?? 0) + 1;
}

/** `4 sessions FAILED`, `3 sessions FAILED, 1 FREE`, `1 session LOGGED_IN (connection failed)`. */
function describeStates(sessions: readonly SessionStates[]): string {
  const parts = new Map<string, number>();
  for (const s of sessions) {
    let word = s.state;
    if (s.state !== 'FAILED' && s.state !== 'FREE') {
      const c = s.connections.find((x) => x.state !== undefined && CONNECTION_DOWN.has(x.state));
      word = `${s.state} (connection ${c?.state ?? 'down'})`;
    }
    parts.set(word, (parts.get(word) ?? 0) + 1);
  }
  return [...parts]
    .map(([word, n], i) => (i === 0 ? `${plural(n, 'session')} ${word}` : `${n} ${word}`))
    .join(', ');
}

/**
 * The one-line wording of an outage: `portal 10.0.0.12:3260 down: 4 sessions FAILED`, and once the
 * kernel fails I/O `portal 10.0.0.12:3260 down: 4 sessions FREE; recovery_tmo expired: the kernel fails I/O`.
 */
function outageSummary(portal: string, sessions: readonly SessionStates[], expired: boolean): string {
  return `portal ${portal} down: ${describeStates(sessions)}${expired ? `; ${RECOVERY_EXPIRED}` : ''}`;
}

/**
 * Every portal whose sessions on this node are all down (at least one session). Sessions with no
 * readable portal are left out: they cannot be grouped. `seenAt` is the read's time (ISO).
 */
export function findOutages(sessions: readonly SysfsSession[], seenAt: string): PortalOutage[] {
  const byPortal = new Map<string, SysfsSession[]>();
  for (const s of sessions) {
    if (s.portal === '') continue;
    const l = byPortal.get(s.portal);
    if (l) l.push(s);
    else byPortal.set(s.portal, [s]);
  }
  const out: PortalOutage[] = [];
  for (const [portal, list] of byPortal) {
    if (!list.every(isSessionDown)) continue;
    const expired = list.filter(isRecoveryExpired).map((s) => s.sid);
    const o: PortalOutage = {
      portal,
      sessions: list.map((s) => s.sid).sort((a, b) => a - b),
      sessionStates: {},
      connectionStates: {},
      deviceStates: {},
      firstSeenAt: seenAt,
      summary: outageSummary(portal, list, expired.length > 0),
    };
    if (expired.length > 0) o.expired = expired.sort((a, b) => a - b);
    for (const s of list) {
      count(o.sessionStates, s.state);
      for (const c of s.connections) count(o.connectionStates, c.state);
      for (const d of s.devices) count(o.deviceStates, d.state);
    }
    out.push(o);
  }
  return out.sort((a, b) => a.portal.localeCompare(b.portal));
}

/**
 * Keeps the first sighting across reads (the kernel has no failure time): a portal still down,
 * or a session (same fingerprint) still down, keeps the time `prev` first saw it. Mutates `next`,
 * which must not be shared yet (the watcher calls it on a read it has just taken).
 */
export function carryDownTimes(prev: Snapshot | undefined, next: Snapshot): void {
  if (!prev) return;
  // A first look (Snapshot.partial) judged no session down: it saw nothing go down.
  const judged = prev.partial === undefined;
  if (next.outages.length > 0) {
    const was = new Map(prev.outages.map((o) => [o.portal, o]));
    const portalsBefore = new Set(judged ? prev.sessions.map((s) => s.portal) : []);
    for (const o of next.outages) {
      const p = was.get(o.portal);
      if (p === undefined) {
        // Sessions to it were read up before: this read saw it go down, so the time is the failure's.
        if (portalsBefore.has(o.portal)) o.downObserved = true;
        continue;
      }
      if (p.firstSeenAt < o.firstSeenAt) o.firstSeenAt = p.firstSeenAt;
      if (p.downObserved) o.downObserved = true;
    }
  }
  let before: Map<string, Session> | undefined;
  for (const s of next.sessions) {
    if (s.downSeenAt === undefined) continue;
    before ??= new Map(prev.sessions.map((p) => [p.key, p]));
    const p = before.get(s.key);
    if (p === undefined) continue;
    if (p.downSeenAt === undefined) {
      if (judged) s.downObserved = true;
    } else {
      if (p.downSeenAt < s.downSeenAt) s.downSeenAt = p.downSeenAt;
      if (p.downObserved) s.downObserved = true;
    }
  }
}

/** The outage of a session's portal, if its portal is down. */
function outageOf(snap: Pick<Snapshot, 'outages'>, s: Pick<Session, 'portal'>): PortalOutage | undefined {
  if (s.portal === '') return undefined;
  return snap.outages.find((o) => o.portal === s.portal);
}

/** Why a session counts as down, for refusals and the console: its whole portal, or it alone. */
type DownScope =
  | { scope: 'portal'; outage: PortalOutage }
  | { scope: 'session'; sessionsUp: number; summary: string };

/** Whether `s` is down, and whether its whole portal or only it (with the other sessions still up). */
export function downScopeOf(snap: Pick<Snapshot, 'outages' | 'sessions'>, s: Session): DownScope | undefined {
  const outage = outageOf(snap, s);
  if (outage) return { scope: 'portal', outage };
  if (!isSessionDown(s)) return undefined;
  const up = snap.sessions.filter(
    (x) => x.portal === s.portal && x.key !== s.key && !isSessionDown(x),
  ).length;
  return {
    scope: 'session',
    sessionsUp: up,
    summary: `session ${s.sid} down (${describeStates([s]).replace(/^1 session /, '')}) while ${plural(up, 'other session')} to portal ${s.portal || '?'} ${up === 1 ? 'is' : 'are'} up`,
  };
}

const tally = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');

/**
 * The facts behind an outage's summary, one line: its sessions, the kernel states of their
 * connections and devices, and when this process first saw it (`status`, doctor and the console).
 */
export function outageDetail(o: PortalOutage, nowMs: number): string {
  const parts = [`${o.sessions.length === 1 ? 'session' : 'sessions'} ${o.sessions.join(', ')}`];
  const conns = tally(o.connectionStates);
  if (conns) parts.push(`connections ${conns}`);
  const devs = tally(o.deviceStates);
  if (devs) parts.push(`devices ${devs}`);
  if (o.expired)
    parts.push(
      `recovery_tmo expired on ${o.expired.length === o.sessions.length ? 'all' : o.expired.join(', ')}`,
    );
  parts.push(outageDownWords(o, nowMs));
  return parts.join('; ');
}

/** `down 14 min, since 15:28 UTC` or `first seen down 3 min ago, at 15:28 UTC` (time.ts). */
export function outageDownWords(o: PortalOutage, nowMs: number): string {
  return downWords(o.firstSeenAt, nowMs, o.downObserved === true);
}
