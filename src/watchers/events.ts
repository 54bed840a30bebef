/**
 * Every line of the timeline, worded once: one constructor per transition. The snapshot diff
 * (diff.ts), the poll's early announcements (probe-diff.ts) and the watcher's own events (health,
 * actions) all build their events here, so a change of wording is made in one place.
 *
 * Each event also carries its `transition` (what moved, e.g. `state running→offline`): with its kind
 * and subject (the object's fingerprint, never a sid or sdX alone) that is the event's identity
 * (eventIdentity). The watcher matches an early announcement with the snapshot diff's copy by
 * identity, so the text can change freely without an event being reported twice.
 */
import type { Plan } from '../engine/actions/types.js';
import type {
  KubeletVolume,
  Mount,
  MultipathMap,
  NodeRecord,
  PodVolume,
  PortalOutage,
  ScsiDevice,
  Session,
  Snapshot,
} from '../engine/model.js';
import { outageDownWords } from '../engine/snapshot/outages.js';
import { nodeProblems, type Problem, problemSortKey } from '../engine/snapshot/problems.js';
import { plural } from '../engine/text/plural.js';
import type { EventDraft, EventKind, NodeEvent, NodeState, Severity } from './types.js';

function event(
  kind: EventKind,
  severity: Severity,
  subject: string,
  transition: string,
  message: string,
): EventDraft {
  return { kind, severity, subject, transition, message };
}

/** Kind, subject and transition: equal for two events that report the same change, whatever their text. */
export function eventIdentity(e: EventDraft): string {
  return `${e.kind}\0${e.subject}\0${e.transition}`;
}

const moved = (what: string, from: string | undefined, to: string | undefined) =>
  `${what} ${from ?? '?'}→${to ?? '?'}`;

// --- sessions -------------------------------------------------------------------------------

const sessionLabel = (s: Session) => `${s.targetIqn} @ ${s.portal}`;

export const sessionAppeared = (s: Session): EventDraft =>
  event(
    'session',
    'info',
    s.key,
    'appeared',
    `session ${s.sid} appeared: ${sessionLabel(s)} (${s.iface}) ${s.state}`,
  );

export const sessionGone = (s: Session): EventDraft =>
  event('session', 'info', s.key, 'gone', `session ${s.sid} gone: ${sessionLabel(s)} (${s.iface})`);

/** Same target, portal and iface, a new sid: the kernel re-created the session. */
export const sessionReestablished = (p: Session, n: Session): EventDraft =>
  event(
    'session',
    'info',
    n.key,
    moved('sid', String(p.sid), String(n.sid)),
    `session ${p.sid}→${n.sid} re-established: ${sessionLabel(n)}`,
  );

/** A session's `state` moved: `session N p→n (iqn @ portal)`, warn unless now LOGGED_IN. */
export function sessionStateEvent(s: Session, from: string, to: string): EventDraft {
  return event(
    'session',
    to === 'LOGGED_IN' ? 'info' : 'warn',
    s.key,
    moved('state', from, to),
    `session ${s.sid} ${from}→${to} (${sessionLabel(s)})`,
  );
}

// --- SCSI devices ---------------------------------------------------------------------------

const deviceLabel = (d: ScsiDevice) => d.name ?? `LUN ${d.lun} (${d.hctl})`;
const isRunning = (state: string | undefined) => state === undefined || state === 'running';

export const deviceAppeared = (d: ScsiDevice, s: Session): EventDraft =>
  event('device', 'info', d.key, 'appeared', `${deviceLabel(d)} appeared (session ${s.sid} LUN ${d.lun})`);

export const deviceGone = (d: ScsiDevice, s: Session): EventDraft =>
  event('device', 'info', d.key, 'gone', `${deviceLabel(d)} gone (session ${s.sid} LUN ${d.lun})`);

/** The same LUN under a new block name (the kernel reuses sd names). */
export const deviceRenamed = (from: string, n: ScsiDevice): EventDraft =>
  event('device', 'info', n.key, moved('name', from, n.name), `${from} is now ${n.name} (LUN ${n.lun})`);

/** A disk's `state` moved: `sdX state p→n`, warn unless now running. */
export function deviceStateEvent(
  d: ScsiDevice,
  from: string | undefined,
  to: string | undefined,
): EventDraft {
  return event(
    'device',
    isRunning(to) ? 'info' : 'warn',
    d.key,
    moved('state', from, to),
    `${deviceLabel(d)} state ${from ?? '?'}→${to ?? '?'}`,
  );
}

/**
 * A problem the first full read found (problemsAtStart): it was there before the watch began, so
 * it says so; failed is an error, anything less a warning.
 */
function problemAtStart(
  kind: EventKind,
  subject: string,
  what: string,
  p: { severity: string; reason: string },
  where?: string,
): EventDraft {
  const severity = p.severity === 'failed' ? 'error' : 'warn';
  // What and why first (they survive 80 columns), then where, which the detail and JSON also hold.
  const message = `${what} ${p.severity} at start: ${p.reason}${where ? ` — ${where}` : ''}`;
  return event(kind, severity, subject, `at start ${p.severity}`, message);
}

// --- portals --------------------------------------------------------------------------------

/** Subject of portal events: the portal as the snapshot names it. */
const portalSubject = (portal: string) => `portal ${portal}`;

/** Every session of the node to a portal went down: the outage's own summary (warn, as a session FAILED is). */
export function portalDownEvent(o: PortalOutage): EventDraft {
  return event('portal', 'warn', portalSubject(o.portal), 'down', o.summary);
}

/** A down portal's recovery_tmo expired: the kernel fails I/O now (error: pods get EIO). */
export function portalExpiredEvent(o: PortalOutage): EventDraft {
  const n = o.expired?.length ?? 0;
  return event(
    'portal',
    'error',
    portalSubject(o.portal),
    'recovery expired',
    `portal ${o.portal}: recovery_tmo expired on ${n === o.sessions.length ? 'all ' : ''}${n} of ${o.sessions.length} session${o.sessions.length === 1 ? '' : 's'}: the kernel fails I/O, pods get EIO`,
  );
}

/** A portal that was down has a session up again, or its last down session is gone. */
export function portalUpEvent(o: PortalOutage, next: Snapshot): EventDraft {
  const up = next.sessions.filter((s) => s.portal === o.portal && s.state === 'LOGGED_IN').length;
  const message =
    up > 0
      ? `portal ${o.portal} up again: ${plural(up, 'session')} LOGGED_IN (${outageDownWords(o, Date.parse(next.takenAt))})`
      : `portal ${o.portal} no longer down: its sessions are gone (${outageDownWords(o, Date.parse(next.takenAt))})`;
  return event('portal', 'info', portalSubject(o.portal), 'up', message);
}

// --- multipath ------------------------------------------------------------------------------

export const mapAppeared = (m: MultipathMap): EventDraft =>
  event('multipath', 'info', m.alias, 'appeared', `multipath map ${m.alias} (${m.name}) appeared`);

export const mapGone = (m: MultipathMap): EventDraft =>
  event('multipath', 'info', m.alias, 'gone', `multipath map ${m.alias} (${m.name}) gone`);

export const pathFailed = (m: MultipathMap, sd: string): EventDraft =>
  event('multipath', 'warn', m.alias, `path ${sd} failed`, `path ${sd} of ${m.alias} failed`);

export const pathRestored = (m: MultipathMap, sd: string): EventDraft =>
  event('multipath', 'info', m.alias, `path ${sd} restored`, `path ${sd} of ${m.alias} restored`);

export const pathAdded = (m: MultipathMap, sd: string): EventDraft =>
  event('multipath', 'info', m.alias, `path ${sd} added`, `path ${sd} added to ${m.alias}`);

export const pathLeft = (m: MultipathMap, sd: string): EventDraft =>
  event('multipath', 'info', m.alias, `path ${sd} left`, `path ${sd} left ${m.alias}`);

// --- mounts ---------------------------------------------------------------------------------

export const mounted = (m: Mount): EventDraft =>
  event(
    'mount',
    'info',
    m.mountPoint,
    `mounted ${m.mountId}`,
    `mounted ${m.source} (${m.fsType}) on ${m.mountPoint}`,
  );

export const mountGone = (m: Mount): EventDraft =>
  event('mount', 'info', m.mountPoint, `unmounted ${m.mountId}`, `mount of ${m.mountPoint} gone`);

// --- kubelet --------------------------------------------------------------------------------

export const iscsiJsonWritten = (file: string, volName: string): EventDraft =>
  event('kubelet', 'info', file, 'written', `iscsi.json written for ${volName}`);

export const iscsiJsonRemoved = (file: string, volName: string): EventDraft =>
  event('kubelet', 'warn', file, 'removed', `iscsi.json removed for ${volName}`);

export const iscsiJsonChanged = (file: string, volName: string): EventDraft =>
  event('kubelet', 'info', file, 'changed', `iscsi.json changed for ${volName}`);

export const volumeDirAdded = (v: KubeletVolume): EventDraft =>
  event('kubelet', 'info', v.path, 'added', `kubelet volume dir added: ${v.path}`);

export const volumeDirRemoved = (v: KubeletVolume): EventDraft =>
  event('kubelet', 'info', v.path, 'removed', `kubelet volume dir removed: ${v.path}`);

/**
 * A volume's expected-state problem (src/engine/snapshot/problems.ts expectedProblem) appeared or
 * changed: its reason is the message (`volume pv-x has 1 of 2 paths: portal … not logged in`).
 */
export const volumeShort = (path: string, reason: string, failed: boolean): EventDraft =>
  event('kubelet', failed ? 'error' : 'warn', path, `expected ${reason}`, reason);

/** The volume is on every path and LUN its metadata expects again. */
export const volumeWhole = (path: string, name: string, paths: number): EventDraft =>
  event(
    'kubelet',
    'info',
    path,
    'expected restored',
    `volume ${name} on its expected paths again (${paths} path${paths === 1 ? '' : 's'})`,
  );

export const podVolumeAdded = (v: PodVolume): EventDraft =>
  event('kubelet', 'info', v.path, 'added', `pod ${v.podUid} volume ${v.volName} added`);

export const podVolumeRemoved = (v: PodVolume): EventDraft =>
  event('kubelet', 'info', v.path, 'removed', `pod ${v.podUid} volume ${v.volName} removed`);

// --- node records ---------------------------------------------------------------------------

const recordLabel = (r: NodeRecord) => `${r.targetIqn} @ ${r.portal} (${r.iface})`;

export const recordAdded = (r: NodeRecord): EventDraft =>
  event('record', 'info', r.path, 'added', `node record added: ${recordLabel(r)}`);

export const recordRemoved = (r: NodeRecord): EventDraft =>
  event('record', 'info', r.path, 'removed', `node record removed: ${recordLabel(r)}`);

export const recordStartup = (p: NodeRecord, n: NodeRecord): EventDraft =>
  event(
    'record',
    'info',
    n.path,
    moved('startup', p.startup, n.startup),
    `node record ${recordLabel(n)}: startup ${p.startup ?? '?'}→${n.startup ?? '?'}`,
  );

export const recordChanged = (n: NodeRecord): EventDraft =>
  event('record', 'info', n.path, 'changed', `node record changed: ${recordLabel(n)}`);

// --- the watcher itself ---------------------------------------------------------------------

/** Transitions of the watcher's own failures: the exporter counts them (metrics-counters.ts). */
export const READ_FAILED = 'refresh failed';
export const READ_WORKS = 'refresh works';
export const POLL_FAILED = 'poll failed';
export const FILE_WATCH_FAILED = 'file watch failed';

/** True for an event that says a session's kernel state moved (sessionStateEvent). */
export function isSessionStateMove(e: Pick<NodeEvent, 'kind' | 'transition'>): boolean {
  return e.kind === 'session' && e.transition?.startsWith('state ') === true;
}

/** A source stopped feeding changes: what it covered now waits for the poll. */
export const sourceInactive = (name: string, detail: string | undefined): EventDraft =>
  event('watcher', 'warn', name, 'inactive', `${name} inactive: ${detail ?? ''}`);

export const refreshFailed = (why: string, reason: string): EventDraft =>
  event('watcher', 'error', 'watcher', READ_FAILED, `refresh failed: ${why} (after ${reason})`);

export const refreshWorksAgain = (): EventDraft =>
  event('watcher', 'info', 'watcher', READ_WORKS, 'refresh works again');

export const pollFailed = (why: string): EventDraft =>
  event('watcher', 'warn', 'watcher', POLL_FAILED, `poll failed: ${why}`);

export const fileWatchFailed = (detail: string): EventDraft =>
  event('watcher', 'warn', 'watcher', FILE_WATCH_FAILED, `file watch ${detail}`);

/** The first event: what the watcher sees and which sources feed it. */
export function watchingSummary(st: NodeState): EventDraft {
  const snap = st.snapshot;
  const s = snap?.sessions ?? [];
  const devices = s.reduce((n, x) => n + x.devices.length, 0);
  const failed = s.filter((x) => x.state !== 'LOGGED_IN').length;
  const active = st.health.sources.filter((x) => x.active).map((x) => x.name);
  return event(
    'watcher',
    'info',
    'watcher',
    'watching',
    `watching ${snap?.node.hostname ?? 'node'}: ${plural(s.length, 'session')} (${failed} not logged in), ` +
      `${plural(devices, 'SCSI device')}, ${plural(snap?.multipath.length ?? 0, 'multipath map')}, ` +
      `${plural(snap?.kubelet.volumes.length ?? 0, 'kubelet volume')}; sources: ${active.join(', ') || 'none'}`,
  );
}

/** At most this many sessions are reported one by one at start; the rest in one line. */
const START_PROBLEMS_MAX = 50;

/**
 * What is already wrong when watching starts, as events right after `watchingSummary`: each portal
 * outage (the portal's own down event, so its up event later pairs with it), then each session with
 * a problem, worst first, then each kubelet or CSI volume with one, in the problems rule's words
 * (nodeProblems: the console's REASON and `status --problems`). `watch` and the console's Events
 * view both start from these (the snapshot diff only reports changes), so a timeline that begins
 * mid-incident says what the incident is before the first change arrives.
 */
export function problemsAtStart(snap: Snapshot): EventDraft[] {
  if (snap.partial) return [];
  const out = snap.outages.map(portalDownEvent);
  const problems = nodeProblems(snap);
  const bad = snap.sessions
    .map((s) => ({ s, p: problems.sessions.get(s.key) }))
    .filter((x): x is { s: Session; p: Problem } => x.p !== undefined && x.p.severity !== 'ok')
    .sort((a, b) => problemSortKey(a.p) - problemSortKey(b.p) || a.s.sid - b.s.sid);
  for (const { s, p } of bad.slice(0, START_PROBLEMS_MAX))
    out.push(problemAtStart('session', s.key, `session ${s.sid}`, p, sessionLabel(s)));
  const more = bad.length - START_PROBLEMS_MAX;
  if (more > 0)
    out.push(
      event(
        'watcher',
        'warn',
        'watcher',
        'problems at start',
        `and ${more} more session${more === 1 ? '' : 's'} with problems (iscsi-console status --problems lists them)`,
      ),
    );
  for (const [path, p] of problems.volumes)
    if (p.severity !== 'ok') out.push(problemAtStart('kubelet', path, 'volume', p, path));
  for (const [path, p] of problems.csiVolumes)
    if (p.severity !== 'ok') out.push(problemAtStart('kubelet', path, 'CSI volume', p, path));
  return out;
}

// --- actions --------------------------------------------------------------------------------

export const actionStarted = (plan: Plan): EventDraft =>
  event('action', 'info', plan.subject, 'started', `${plan.title}: started`);

export const actionDone = (plan: Plan): EventDraft =>
  event('action', 'info', plan.subject, 'done', `${plan.title}: done`);

export const actionFailed = (plan: Plan, why: string): EventDraft =>
  event('action', 'error', plan.subject, 'failed', `${plan.title} failed: ${why}`);
