/**
 * The one rule for "what is wrong" on a node: for each session, kubelet volume (in-tree and CSI),
 * target, SCSI device and multipath map, a severity and a one-line reason an admin reads in a
 * table cell (`sdc transport-offline`, `map mpatha lost path sdc`, `no kubelet volume`), a node
 * summary line, and the sort key that puts problems first. Every view and the CLI use it, so
 * Sessions, Volumes, Targets and Devices cannot disagree about the same session.
 *
 * Built only from the snapshot's verdicts and health (verdicts.ts), outages (outages.ts) and kernel
 * states; it decides nothing new about the node. Severity order: failed > degraded >
 * stale / orphaned / outage > warning (kubelet metadata a volume lacks) > ok.
 */
import type {
  CsiVolume,
  ExpectedVolume,
  FsError,
  KubeletVolume,
  MultipathMap,
  PortalProbe,
  ScsiDevice,
  Session,
  SessionKey,
  Snapshot,
} from '../model.js';
import { plural } from '../text/plural.js';
import { podLabel } from '../text/pod-names.js';
import { volumeHasSession } from './expected.js';
import { isRecoveryExpired, RECOVERY_EXPIRED } from './outages.js';
import { stuckReason } from './stuck.js';

export type Severity = 'failed' | 'degraded' | 'outage' | 'stale' | 'orphaned' | 'warning' | 'ok';

const RANK: Record<Severity, number> = {
  failed: 4,
  degraded: 3,
  outage: 2,
  stale: 2,
  orphaned: 2,
  warning: 1,
  ok: 0,
};

/** Higher is worse. A session's `health` words (ok, degraded, failed) are severities too. */
export function severityRank(s: Severity): number {
  return RANK[s];
}

export interface Problem {
  severity: Severity;
  /** The short reasons, most important first (empty when ok). */
  reasons: string[];
  /** The reasons on one line (`; `-joined), '' when ok. */
  reason: string;
  /** When the node was first seen in this state (ISO; a down session's `downSeenAt`), when known. */
  since?: string;
}

/** The node's problem when iscsid is down (Snapshot.iscsid), as every surface says it. */
const ISCSID_DOWN = 'iscsid not running: no session recovers, iscsiadm logins and logouts fail';
const ISCSID_DOWN_NO_RELOGIN = 'iscsid down: nothing logs it back in';

const OK: Problem = Object.freeze({ severity: 'ok', reasons: [], reason: '' }) as Problem;

function problem(severity: Severity, reasons: string[], since?: string): Problem {
  if (severity === 'ok' && reasons.length === 0) return OK;
  return { severity, reasons, reason: reasons.join('; '), ...(since ? { since } : {}) };
}

function worse(a: Severity, b: Severity): Severity {
  return RANK[b] > RANK[a] ? b : a;
}

function earliest(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return a <= b ? a : b;
}

/**
 * Sort key, ascending = problems first: the worst severity first, then the longest-standing (oldest
 * `since`), then those with no known start. Fits a table's numeric sort column.
 */
export function problemSortKey(p: Problem): number {
  const since = p.since ? Date.parse(p.since) : Number.NaN;
  // Epoch milliseconds stay below 1e13 until the year 2286.
  return (4 - RANK[p.severity]) * 1e13 + (Number.isFinite(since) ? since : 1e13 - 1);
}

/** What the per-item rules need from the whole snapshot, built once per snapshot. */
interface ProblemContext {
  mapsBySlave: ReadonlyMap<string, MultipathMap>;
  downPortals: ReadonlySet<string>;
  bySid: ReadonlyMap<number, Session>;
  /** Expected volumes (expected.ts) by path: the in-tree global dir, else the driver file's staging path. */
  expectedByPath: ReadonlyMap<string, ExpectedVolume[]>;
  /** Down sessions whose portal the live probe found answering (stuck.ts), by sid. */
  stuckBySid: ReadonlyMap<number, PortalProbe>;
  /** Filesystems with kernel-reported errors (fs-errors.ts), by the device they are on (sd or dm). */
  fsByDevice: ReadonlyMap<string, FsError>;
  /** iscsid is down (Snapshot.iscsid): no down session is logged back in. */
  iscsidDown: boolean;
}

const contexts = new WeakMap<Snapshot, ProblemContext>();

export function problemContext(snap: Snapshot): ProblemContext {
  let c = contexts.get(snap);
  if (!c) {
    const mapsBySlave = new Map<string, MultipathMap>();
    for (const m of snap.multipath) for (const s of m.slaves) mapsBySlave.set(s, m);
    const expectedByPath = new Map<string, ExpectedVolume[]>();
    for (const v of snap.expected?.volumes ?? []) {
      const key = v.source === 'in-tree' ? v.path : driverFileStaging(snap, v.path);
      if (key) expectedByPath.set(key, [...(expectedByPath.get(key) ?? []), v]);
    }
    c = {
      mapsBySlave,
      downPortals: new Set(snap.outages.map((o) => o.portal)),
      bySid: new Map(snap.sessions.map((s) => [s.sid, s])),
      expectedByPath,
      fsByDevice: new Map((snap.fsErrors ?? []).map((e) => [e.device, e])),
      iscsidDown: snap.iscsid === 'down',
      stuckBySid: new Map(
        (snap.stuck ?? []).flatMap((p) => p.sessions.map((sid) => [sid, p.probe] as const)),
      ),
    };
    contexts.set(snap, c);
  }
  return c;
}

const deviceName = (d: ScsiDevice) => d.name ?? d.hctl;

function driverFileStaging(snap: Snapshot, path: string): string | undefined {
  return snap.csi?.driverFiles.find((f) => f.path === path)?.stagingPath;
}

/** What an expected volume lacks: a LUN with no device at all, or paths short of what it expects. */
type ExpectationKind = 'missing-lun' | 'missing-path';

/**
 * An expected volume's problem (expected.ts): `failed` when a LUN it expects has no device on any
 * logged-in session (`LUN 3 expected by pv-y has no device`), `degraded` when it has fewer paths than
 * it expects because a portal has no session or a logged-in session lacks the LUN (`volume pv-x has
 * 1 of 2 paths: portal 10.0.0.11:3260 not logged in`). A path whose session is down is the session's
 * own problem, not this one. Only for a volume in service (some session to an expected portal): a
 * volume with none is "no session logged in" already.
 */
function expectedProblem(v: ExpectedVolume): ExpectedProblem {
  if (!volumeHasSession(v)) return OK;
  // A volume nothing uses is leftover first: what it lacks is a warning, not an incident.
  const lost: Severity = v.inUse ? 'failed' : 'warning';
  const short: Severity = v.inUse ? 'degraded' : 'warning';
  for (const l of v.expectedLuns) {
    const live = l.paths.find((p) => p.sessionState === 'LOGGED_IN');
    if (live && l.device === null)
      return {
        ...problem(lost, [`LUN ${l.lun} expected by ${v.name} has no device`]),
        kind: 'missing-lun',
        hint: scanHint(live.sid!, l.lun),
      };
  }
  if (v.paths >= v.expectedPaths) return OK;
  const why: string[] = v.missingPortals.map((p) => `portal ${p} not logged in`);
  let scan: string | undefined;
  for (const l of v.expectedLuns)
    for (const p of l.paths)
      if (p.sessionState === 'LOGGED_IN' && p.device === undefined) {
        why.push(`LUN ${l.lun} not on session ${p.sid} (${p.portal})`);
        scan ??= scanHint(p.sid!, l.lun);
      }
  if (why.length === 0) return OK;
  const text = `volume ${v.name} has ${v.paths} of ${v.expectedPaths} paths: ${why.join(', ')}`;
  const ref = /^[A-Za-z0-9._:-]+$/.test(v.name) ? v.name : v.path;
  const hint = v.missingPortals.length > 0 ? `iscsi-console restore ${ref} --write` : scan;
  return { ...problem(short, [text]), kind: 'missing-path', ...(hint ? { hint } : {}) };
}

/** A problem of the expected state, with what it is and the one command that repairs it. */
type ExpectedProblem = Problem & { kind?: ExpectationKind; hint?: string };

const scanHint = (sid: number, lun: number) => `iscsi-console scan ${sid} ${lun} --write`;

/** The expectation problems of the volumes behind one path (a global dir, a CSI staging path), merged. */
function expectedReasons(path: string, ctx: ProblemContext): { severity: Severity; reasons: string[] } {
  let severity: Severity = 'ok';
  const reasons: string[] = [];
  for (const v of ctx.expectedByPath.get(path) ?? []) {
    const p = expectedProblem(v);
    severity = worse(severity, p.severity);
    reasons.push(...p.reasons);
  }
  return { severity, reasons };
}

/** `map mpatha lost path sdc`, `map mpatha lost paths sdb, sdc`, `map mpatha lost all paths`. */
function mapReason(m: MultipathMap): string {
  if (m.slaves.length > 0 && m.failedSlaves.length === m.slaves.length)
    return `map ${m.alias} lost all paths`;
  const n = m.failedSlaves.length;
  return `map ${m.alias} lost path${n === 1 ? '' : 's'} ${m.failedSlaves.join(', ')}`;
}

/** The filesystem errors on a session's disks or on the multipath maps over them. */
function sessionFsErrors(s: Session, ctx: ProblemContext): FsError[] {
  if (ctx.fsByDevice.size === 0) return [];
  const out = new Set<FsError>();
  for (const d of s.devices) {
    if (!d.name) continue;
    const own = ctx.fsByDevice.get(d.name);
    if (own) out.add(own);
    const m = ctx.mapsBySlave.get(d.name);
    const onMap = m ? ctx.fsByDevice.get(m.name) : undefined;
    if (onMap) out.add(onMap);
  }
  return [...out];
}

/**
 * A session's problem: `failed`/`degraded` from its health, else its verdict when that is stale,
 * orphaned or outage. Reasons: the portal outage first (it explains the rest), the session state,
 * each device not running, each multipath map that lost a path on another session, then why
 * nothing uses it.
 */
export function sessionProblem(s: Session, ctx: ProblemContext): Problem {
  if (s.pending) return OK;
  const reasons: string[] = [];
  if (ctx.downPortals.has(s.portal)) reasons.push(`portal ${s.portal} down`);
  // Before the states that explain it: what the pods feel now is the decisive fact.
  if (isRecoveryExpired(s)) reasons.push(RECOVERY_EXPIRED);
  // Without iscsid nothing logs it back in, whatever the portal does.
  if (ctx.iscsidDown && s.downSeenAt !== undefined) reasons.push(ISCSID_DOWN_NO_RELOGIN);
  const stuck = ctx.stuckBySid.get(s.sid);
  // Stuck first: the portal answers, so the node, not the array, is what must be repaired.
  if (stuck) reasons.push(stuckReason(s, stuck));
  else if (s.state !== 'LOGGED_IN') reasons.push(`session ${s.state}`);
  if (s.devices.length === 0) reasons.push('no SCSI devices');
  const own = new Set<string>();
  for (const d of s.devices) {
    if (d.name) own.add(d.name);
    if (d.state !== 'running') reasons.push(`${deviceName(d)} ${d.state ?? 'state unknown'}`);
  }
  const maps = new Set<MultipathMap>();
  for (const d of s.devices) {
    const m = d.name ? ctx.mapsBySlave.get(d.name) : undefined;
    if (m && m.failedSlaves.length > 0 && !maps.has(m)) {
      maps.add(m);
      // This session's own failed path is already named; a map that lost another session's path is news.
      if (m.failedSlaves.some((x) => !own.has(x))) reasons.push(mapReason(m));
    }
  }
  let severity: Severity = s.health;
  // A LUN whose only device is down fails its I/O: the session is as bad as its worst device.
  if (severity === 'degraded' && s.devices.some((d) => d.state !== 'running' && !servedElsewhere(d, ctx)))
    severity = 'failed';
  // A filesystem the kernel stopped fails every pod's writes, whatever the session's own state says.
  for (const e of sessionFsErrors(s, ctx)) {
    reasons.unshift(e.summary);
    severity = worse(severity, e.state === 'failing' ? 'failed' : 'warning');
  }
  if (severity === 'ok' && (s.verdict === 'stale' || s.verdict === 'orphaned' || s.verdict === 'outage'))
    severity = s.verdict;
  // A CSI driver's leftover says which driver left it: "no kubelet volume" would send the admin
  // looking for an in-tree volume that never existed.
  if (s.verdict === 'stale') reasons.push(s.leftBy ? `left by ${s.leftBy}` : 'no kubelet volume');
  else if (s.verdict === 'orphaned') reasons.push('kubelet dir, no pod or mount');
  if (severity === 'ok') return OK;
  return problem(severity, reasons, s.downSeenAt);
}

/**
 * True when kubelet knows the session: a global dir of its (in-tree) or a CSI volume claims it.
 * The Targets view's "not in kubelet" must agree with the Volumes view's SIDS, which come from the
 * same links (a mounted volume ties every path of its multipath map, whatever portal its dir names).
 */
export function inKubelet(s: Session): boolean {
  if (s.kubeletVolumes.length > 0) return true;
  return (s.claims ?? []).some((c) => c.owner === 'in-tree' || c.owner === 'csi');
}

/** The worst of some sessions, with each problem session's reasons as `sid N: …`. */
function ofSessions(sessions: readonly Session[], ctx: ProblemContext): Problem & { failedAll: boolean } {
  let severity: Severity = 'ok';
  let since: string | undefined;
  let failed = 0;
  const reasons: string[] = [];
  for (const s of sessions) {
    const p = sessionProblem(s, ctx);
    if (p.severity === 'failed') failed++;
    if (p.severity === 'ok') continue;
    severity = worse(severity, p.severity);
    since = earliest(since, p.since);
    if (p.reason) reasons.push(sessions.length > 1 ? `sid ${s.sid}: ${p.reason}` : p.reason);
  }
  return {
    ...problem(severity, reasons, since),
    failedAll: sessions.length > 0 && failed === sessions.length,
  };
}

/**
 * A volume's problem from its sessions and its use: failed when every session behind it is
 * failed (or a used volume has none), degraded when some path is failed or degraded (multipath
 * still serves I/O), orphaned when nothing uses it, a warning for kubelet metadata problems.
 */
function volumeProblemOf(
  sids: readonly number[],
  used: boolean,
  metadataProblems: readonly string[],
  ctx: ProblemContext,
  noSession: string,
  unusedIsOrphan: boolean,
  expected: { severity: Severity; reasons: string[] } = { severity: 'ok', reasons: [] },
): Problem {
  const sessions = sids.map((sid) => ctx.bySid.get(sid)).filter((s): s is Session => s !== undefined);
  const reasons: string[] = [];
  let severity: Severity = 'ok';
  let since: string | undefined;
  if (sessions.length === 0) {
    severity = used ? 'failed' : 'orphaned';
    reasons.push(used ? noSession : `${noSession}, nothing uses it`);
  } else {
    const p = ofSessions(sessions, ctx);
    since = p.since;
    if (p.severity === 'failed' || p.severity === 'degraded') severity = p.failedAll ? 'failed' : 'degraded';
    else if (p.severity !== 'ok' && !used) severity = p.severity;
    if (severity !== 'ok') reasons.push(...p.reasons);
    if (!used && unusedIsOrphan && severity !== 'failed' && severity !== 'degraded') {
      severity = worse(severity, 'orphaned');
      if (!reasons.includes('kubelet dir, no pod or mount')) reasons.push('no pod or mount uses it');
    }
  }
  if (expected.reasons.length > 0) {
    severity = worse(severity, expected.severity);
    reasons.unshift(...expected.reasons);
  }
  if (metadataProblems.length > 0) {
    severity = worse(severity, 'warning');
    reasons.push(...metadataProblems);
  }
  return problem(severity, reasons, since);
}

/** An in-tree kubelet volume (a global dir). */
function volumeProblem(v: KubeletVolume, ctx: ProblemContext): Problem {
  const used = v.mounted || v.pods.length > 0 || v.podDevices.length > 0;
  return volumeProblemOf(
    v.sessions,
    used,
    v.problems,
    ctx,
    'no session logged in',
    true,
    expectedReasons(v.path, ctx),
  );
}

/**
 * A CSI volume (staging and publish dirs). Unmounted is not orphaned by itself: the driver's claim
 * keeps it (a pod restarting, docs/csi-drivers.md), so only its sessions' verdicts say leftover.
 */
function csiVolumeProblem(v: CsiVolume, ctx: ProblemContext): Problem {
  const used = v.stagingMounted || v.publish.some((p) => p.mounted);
  const path = csiVolumePath(v);
  return volumeProblemOf(
    v.sessions,
    used,
    v.problems,
    ctx,
    'no session claimed',
    false,
    path ? expectedReasons(path, ctx) : undefined,
  );
}

/** A (target, portal) row: the worst of its sessions, and `not in kubelet` when kubelet knows none of them. */
export function targetProblem(sessions: readonly Session[], ctx: ProblemContext): Problem {
  const p = ofSessions(sessions, ctx);
  if (sessions.length === 0) return problem('warning', ['no session']);
  if (sessions.some(inKubelet)) return p;
  return problem(p.severity, [...p.reasons, 'not in kubelet'], p.since);
}

/**
 * Whether a device that is not running still has its LUN served: it is a path of a multipath map
 * with another path running, so I/O goes on through the map (degraded); else its I/O fails (failed).
 */
function servedElsewhere(d: ScsiDevice, ctx: ProblemContext): boolean {
  const m = d.name ? ctx.mapsBySlave.get(d.name) : undefined;
  return m?.slaves.some((x) => x !== d.name && !m.failedSlaves.includes(x)) === true;
}

/**
 * A SCSI device: not running, or its session not logged in, is `failed` when nothing else serves
 * its LUN and `degraded` when a multipath map still has another path; the session rolls up the
 * same rule (sessionProblem), so a row never reads ✗ under a parent that reads !.
 */
function deviceProblem(d: ScsiDevice, s: Session, ctx: ProblemContext): Problem {
  const reasons: string[] = [];
  if (d.state !== 'running') reasons.push(`${deviceName(d)} ${d.state ?? 'state unknown'}`);
  if (s.state !== 'LOGGED_IN') reasons.push(`session ${s.sid} ${s.state}`);
  if (reasons.length === 0) return OK;
  return problem(servedElsewhere(d, ctx) ? 'degraded' : 'failed', reasons, s.downSeenAt);
}

/** A multipath map: failed with no path left, degraded with some lost. */
function multipathProblem(m: MultipathMap): Problem {
  if (m.failedSlaves.length === 0) return OK;
  const all = m.slaves.length > 0 && m.failedSlaves.length === m.slaves.length;
  return problem(all ? 'failed' : 'degraded', [mapReason(m)]);
}

export interface NodeProblems {
  sessions: ReadonlyMap<SessionKey, Problem>;
  /** By global dir path. */
  volumes: ReadonlyMap<string, Problem>;
  /** By staging path, else the first publish path (the Volumes view's key without `csi:`). */
  csiVolumes: ReadonlyMap<string, Problem>;
  /** By the device's LunKey. */
  devices: ReadonlyMap<string, Problem>;
  /** By kernel name (`dm-0`). */
  maps: ReadonlyMap<string, Problem>;
  /** Expected volumes (snapshot `expected.volumes`) that lack a path or a LUN, by their path. */
  expected: ReadonlyMap<string, ExpectedProblem>;
  /** Sessions per severity (ok included). */
  counts: Record<Severity, number>;
  /**
   * Where the kernel fails I/O now (recovery_tmo expired), one entry per portal, worst first in
   * every surface: the banner, the summary, `doctor`, `watch`, metrics. Empty when none.
   */
  expired: readonly ExpiredRecovery[];
  /** The node's own problem when iscsid is down (degraded: the data path still runs), else absent. */
  iscsid?: Problem;
  /** `2 failed · 1 degraded · 1 stale · 1 orphaned · portal 10.0.0.12:3260 down`. */
  summary: string;
  /** The summary's parts in order, each with the portal it is about (the banner says those). */
  summaryParts: readonly SummaryPart[];
  /** The worst severity on the node. */
  worst: Severity;
}

/** Sessions of one portal whose recovery_tmo expired: the kernel fails their I/O, pods get EIO. */
export interface ExpiredRecovery {
  portal: string;
  /** Sids, ascending. */
  sessions: number[];
  /** The pods using them, `namespace/name` where the node names them, else the UID; sorted. */
  pods: string[];
  /** The earliest first sighting of them down (ISO), and whether the console saw the failure. */
  since?: string;
  observed: boolean;
  /** The whole portal is down (an outage), not only these sessions. */
  outage: boolean;
}

/** One part of the summary line, with the portal it is about (the outage banner says those). */
interface SummaryPart {
  text: string;
  portal?: string;
}

/** Pod UIDs of a session: kubelet's in-tree volume dirs, and the CSI volumes whose sessions include it. */
function sessionPodUids(snap: Snapshot, s: Session): string[] {
  const out = new Set(s.pods);
  for (const v of snap.csi?.volumes ?? [])
    if (v.sessions.includes(s.sid)) for (const p of v.publish) out.add(p.podUid);
  return [...out];
}

/** The expired recoveries of the node, by portal (sorted), from the sessions' own states. */
function expiredRecoveries(snap: Snapshot, ctx: ProblemContext): ExpiredRecovery[] {
  const byPortal = new Map<string, ExpiredRecovery & { uids: Set<string> }>();
  for (const s of snap.sessions) {
    if (s.pending || !isRecoveryExpired(s)) continue;
    let e = byPortal.get(s.portal);
    if (!e) {
      e = {
        portal: s.portal,
        sessions: [],
        pods: [],
        observed: true,
        outage: ctx.downPortals.has(s.portal),
        uids: new Set(),
      };
      byPortal.set(s.portal, e);
    }
    e.sessions.push(s.sid);
    for (const u of sessionPodUids(snap, s)) e.uids.add(u);
    const since = earliest(e.since, s.downSeenAt);
    if (since) e.since = since;
    if (s.downObserved !== true) e.observed = false;
  }
  return [...byPortal.values()]
    .sort((a, b) => a.portal.localeCompare(b.portal))
    .map(({ uids, ...e }) => ({
      ...e,
      sessions: e.sessions.sort((a, b) => a - b),
      pods: [...uids].map((u) => podLabel(snap.kubelet.pods, u)).sort(),
    }));
}

/** `I/O failing on portal 10.0.0.12:3260 (recovery_tmo expired, 2 pods)`: the summary's loudest part. */
function expiredPart(e: ExpiredRecovery): string {
  const pods = e.pods.length > 0 ? `, ${plural(e.pods.length, 'pod')}` : '';
  return `I/O failing on portal ${e.portal} (recovery_tmo expired${pods})`;
}

/** The main path of a CSI volume, as the Volumes view keys it. */
export function csiVolumePath(v: CsiVolume): string {
  return v.stagingPath ?? v.publish[0]?.path ?? '';
}

const SUMMARY_ORDER: Severity[] = ['failed', 'degraded', 'outage', 'stale', 'orphaned'];

/**
 * The node's summary line: sessions per severity, worst first, then each portal that is down and
 * kubelet volumes no session backs. Never empty.
 */
function nodeSummary(
  snap: Snapshot,
  counts: Record<Severity, number>,
  leftoverDirs: number,
  expectedAll: readonly Problem[],
  expired: readonly ExpiredRecovery[],
): SummaryPart[] {
  // Loudest first: where pods get EIO now.
  const out: SummaryPart[] = expired.map((e) => ({ text: expiredPart(e), portal: e.portal }));
  if (snap.iscsid === 'down') out.push({ text: ISCSID_DOWN });
  for (const sev of SUMMARY_ORDER) if (counts[sev] > 0) out.push({ text: `${counts[sev]} ${sev}` });
  const parts: string[] = [];
  const expiredPortals = new Set(expired.map((e) => e.portal));
  for (const o of snap.outages)
    if (!expiredPortals.has(o.portal)) out.push({ text: `portal ${o.portal} down`, portal: o.portal });
  // One volume in use short of a path or a LUN is named as the problem says it; more are counted.
  const expected = expectedAll.filter((p) => p.severity !== 'warning');
  if (expected.length === 1) parts.push(expected[0]!.reason);
  else if (expected.length > 1) parts.push(`${expected.length} volumes short of expected paths or LUNs`);
  for (const e of snap.fsErrors ?? [])
    if (e.state === 'failing') parts.push(`filesystem on ${e.device} stopped: writes fail`);
  for (const p of snap.stuck ?? [])
    parts.push(`${plural(p.sessions.length, 'session')} stuck (portal ${p.portal} answers)`);
  if (leftoverDirs > 0) parts.push(`${plural(leftoverDirs, 'kubelet dir')} without a session`);
  out.push(...parts.map((text) => ({ text })));
  if (out.length > 0) return out;
  const n = snap.sessions.length;
  if (snap.partial) return [{ text: `reading ${snap.partial.sessionsTotal} sessions…` }];
  return [{ text: n === 0 ? 'no iSCSI sessions' : `all ${plural(n, 'session')} ok` }];
}

const nodeCache = new WeakMap<Snapshot, NodeProblems>();

/** Every item's problem and the node summary, computed once per snapshot. */
export function nodeProblems(snap: Snapshot): NodeProblems {
  const cached = nodeCache.get(snap);
  if (cached) return cached;
  const ctx = problemContext(snap);
  const counts: Record<Severity, number> = {
    failed: 0,
    degraded: 0,
    outage: 0,
    stale: 0,
    orphaned: 0,
    warning: 0,
    ok: 0,
  };
  let worst: Severity = 'ok';
  const sessions = new Map<SessionKey, Problem>();
  const devices = new Map<string, Problem>();
  for (const s of snap.sessions) {
    const p = sessionProblem(s, ctx);
    sessions.set(s.key, p);
    counts[p.severity]++;
    worst = worse(worst, p.severity);
    for (const d of s.devices) devices.set(d.key, deviceProblem(d, s, ctx));
  }
  const volumes = new Map<string, Problem>();
  let leftoverDirs = 0;
  for (const v of snap.kubelet.volumes) {
    const p = volumeProblem(v, ctx);
    volumes.set(v.path, p);
    worst = worse(worst, p.severity);
    if (v.sessions.length === 0) leftoverDirs++;
  }
  const csiVolumes = new Map<string, Problem>();
  for (const v of snap.csi?.volumes ?? []) {
    const p = csiVolumeProblem(v, ctx);
    csiVolumes.set(csiVolumePath(v), p);
    worst = worse(worst, p.severity);
  }
  const maps = new Map<string, Problem>();
  for (const m of snap.multipath) maps.set(m.name, multipathProblem(m));
  const expected = new Map<string, ExpectedProblem>();
  for (const v of snap.expected?.volumes ?? []) {
    const p = expectedProblem(v);
    if (p.severity === 'ok') continue;
    expected.set(v.path, p);
    worst = worse(worst, p.severity);
  }
  const expired = expiredRecoveries(snap, ctx);
  const iscsid = ctx.iscsidDown ? problem('degraded', [ISCSID_DOWN]) : undefined;
  if (iscsid) worst = worse(worst, iscsid.severity);
  const summaryParts = nodeSummary(snap, counts, leftoverDirs, [...expected.values()], expired);
  const out: NodeProblems = {
    sessions,
    volumes,
    csiVolumes,
    devices,
    maps,
    expected,
    counts,
    expired,
    ...(iscsid ? { iscsid } : {}),
    summary: summaryParts.map((p) => p.text).join(' · '),
    summaryParts,
    worst,
  };
  nodeCache.set(snap, out);
  return out;
}
