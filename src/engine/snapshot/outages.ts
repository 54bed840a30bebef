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

function count(into: Record<string, number>, value: string | undefined): void {
  if (value === undefined) return;
  into[value] = (into[value] ?? 0) + 1;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

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

/** The one-line wording of an outage: `portal 10.0.0.12:3260 down: 4 sessions FAILED`. */
function outageSummary(portal: string, sessions: readonly SessionStates[]): string {
  return `portal ${portal} down: ${describeStates(sessions)}`;
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
    const o: PortalOutage = {
      portal,
      sessions: list.map((s) => s.sid).sort((a, b) => a - b),
      sessionStates: {},
      connectionStates: {},
      deviceStates: {},
      firstSeenAt: seenAt,
      summary: outageSummary(portal, list),
    };
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
  if (prev.outages.length > 0) {
    const was = new Map(prev.outages.map((o) => [o.portal, o.firstSeenAt]));
    for (const o of next.outages) {
      const t = was.get(o.portal);
      if (t !== undefined && t < o.firstSeenAt) o.firstSeenAt = t;
    }
  }
  let downBefore: Map<string, string> | undefined;
  for (const s of next.sessions) {
    if (s.downSeenAt === undefined) continue;
    downBefore ??= new Map(
      prev.sessions.filter((p) => p.downSeenAt !== undefined).map((p) => [p.key, p.downSeenAt!]),
    );
    const t = downBefore.get(s.key);
    if (t !== undefined && t < s.downSeenAt) s.downSeenAt = t;
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
export function outageDetail(o: PortalOutage): string {
  const parts = [`${o.sessions.length === 1 ? 'session' : 'sessions'} ${o.sessions.join(', ')}`];
  const conns = tally(o.connectionStates);
  if (conns) parts.push(`connections ${conns}`);
  const devs = tally(o.deviceStates);
  if (devs) parts.push(`devices ${devs}`);
  parts.push(`first seen ${o.firstSeenAt}`);
  return parts.join('; ');
}
