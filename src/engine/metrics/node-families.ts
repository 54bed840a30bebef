/**
 * One snapshot (and, in `serve`, the watcher's counters) → metric families. The facts are the
 * engine's own: verdicts and health (verdicts.ts), the problems rule and its summary counts
 * (problems.ts), outages (outages.ts), pod names (pod-names.ts). No hostname label (`instance`
 * comes from the scrape), no CHAP settings, no command lines.
 */
import type { Session, Snapshot } from '../model.js';
import { nodeProblems, problemSortKey, type Severity } from '../snapshot/problems.js';
import { type FamilyName, WATCHER_FAMILIES } from './definitions.js';
import type { MetricFamily } from './exposition.js';
import { CollectingSet, CountingSet, type FamilySet } from './family-set.js';
import { addSession, sessionLabels } from './session-families.js';
import { HEALTHS } from './states.js';
import { addVolumes } from './volume-families.js';

/** Sessions whose series are exported by default (`--max-sessions`). */
export const DEFAULT_MAX_SESSIONS = 5000;

/** What the live watcher counted (serve); absent for a one-shot read. */
export interface WatcherCounters {
  /** How long the last read took, seconds. */
  readDurationSeconds?: number;
  /** When the node was last read (ms since the epoch). */
  lastReadAtMs?: number;
  /** Failed reads by source, since start. */
  readErrors: Readonly<Record<string, number>>;
  /** Series dropped over --max-sessions, summed over every snapshot rendered. */
  seriesDropped: number;
  /** Session state changes, with the session's fingerprint parts. */
  stateChanges: readonly { target: string; portal: string; iface: string; count: number }[];
  /** Events by kind and severity. */
  events: readonly { kind: string; severity: string; count: number }[];
}

export interface MetricsOptions {
  version: string;
  /** Per-session families for at most this many sessions (problems first); default 5,000. */
  maxSessions?: number;
  watcher?: WatcherCounters;
}

interface NodeMetrics {
  families: MetricFamily[];
  /** Series left out of this snapshot's families (sessions over maxSessions). */
  dropped: number;
}

const SEVERITIES: Severity[] = ['failed', 'degraded', 'outage', 'stale', 'orphaned', 'warning', 'ok'];
/** Severities of a problem object (ok is no problem). */
const PROBLEM_SEVERITIES = SEVERITIES.filter((s) => s !== 'ok');

/** The sessions exported: problems first (the problems rule's order), then by sid; the rest dropped. */
function splitSessions(snap: Snapshot, max: number): { kept: Session[]; dropped: Session[] } {
  if (snap.sessions.length <= max) return { kept: snap.sessions, dropped: [] };
  const problems = nodeProblems(snap).sessions;
  const key = (s: Session) => problemSortKey(problems.get(s.key)!);
  const sorted = [...snap.sessions].sort((a, b) => key(a) - key(b) || a.sid - b.sid);
  return { kept: sorted.slice(0, max), dropped: sorted.slice(max) };
}

function addPortals(set: FamilySet, snap: Snapshot, max: number): void {
  const counts = new Map<string, number>();
  for (const s of snap.sessions) if (s.portal) counts.set(s.portal, (counts.get(s.portal) ?? 0) + 1);
  const down = new Set(snap.outages.map((o) => o.portal));
  const expired = new Set(nodeProblems(snap).expired.map((e) => e.portal));
  // Down and expired portals first, so a cap never hides an outage.
  const bad = (p: string) => Number(down.has(p) || expired.has(p));
  const portals = [...counts.keys()].sort((a, b) => bad(b) - bad(a));
  for (const portal of portals.slice(0, max)) {
    set.add('iscsi_portal_down', { portal }, down.has(portal) ? 1 : 0);
    set.add('iscsi_portal_recovery_expired', { portal }, expired.has(portal) ? 1 : 0);
    set.add('iscsi_portal_sessions', { portal }, counts.get(portal)!);
  }
}

function addProblems(set: FamilySet, snap: Snapshot): void {
  const p = nodeProblems(snap);
  for (const severity of SEVERITIES) set.add('iscsi_node_problems', { severity }, p.counts[severity]);
  const kinds: Record<string, Record<string, number>> = {};
  const count = (kind: string, problems: Iterable<{ severity: Severity }>) => {
    const row: Record<string, number> = Object.fromEntries(PROBLEM_SEVERITIES.map((s) => [s, 0]));
    for (const x of problems) if (x.severity !== 'ok') row[x.severity]!++;
    kinds[kind] = row;
  };
  count('session', p.sessions.values());
  count('kubelet_volume', p.volumes.values());
  count('csi_volume', p.csiVolumes.values());
  count('device', p.devices.values());
  count('multipath_map', p.maps.values());
  // Expected state (expected.ts): volumes short of a path, and expected LUNs with no device.
  const expected = [...p.expected.values()];
  count(
    'volume_missing_path',
    expected.filter((x) => x.kind === 'missing-path'),
  );
  count(
    'volume_missing_lun',
    expected.filter((x) => x.kind === 'missing-lun'),
  );
  count(
    'portal',
    snap.outages.map(() => ({ severity: 'outage' as Severity })),
  );
  count('iscsid', p.iscsid ? [p.iscsid] : []);
  count(
    'read',
    snap.problems.map(() => ({ severity: 'warning' as Severity })),
  );
  // Only when probed (stuck.ts) and when the kernel reported filesystem errors (fs-errors.ts).
  count(
    'stuck_session',
    (snap.stuck ?? []).flatMap((x) => x.sessions.map(() => ({ severity: 'failed' as Severity }))),
  );
  count(
    'filesystem',
    (snap.fsErrors ?? []).map((e) => ({
      severity: (e.state === 'failing' ? 'failed' : 'warning') as Severity,
    })),
  );
  for (const [kind, row] of Object.entries(kinds))
    for (const [severity, n] of Object.entries(row))
      set.add('iscsi_node_problem_objects', { kind, severity }, n);
  const health: Record<string, number> = Object.fromEntries(HEALTHS.map((h) => [h, 0]));
  for (const s of snap.sessions) health[s.health] = (health[s.health] ?? 0) + 1;
  for (const [h, n] of Object.entries(health)) set.add('iscsi_sessions', { health: h }, n);
}

function addExporter(set: FamilySet, snap: Snapshot, o: MetricsOptions, dropped: number): void {
  const w = o.watcher;
  set.add('iscsi_console_build_info', { version: o.version }, 1);
  set.add(
    'iscsi_console_read_duration_seconds',
    {},
    microseconds(w?.readDurationSeconds ?? snap.readMs / 1000),
  );
  const at = w?.lastReadAtMs ?? Date.parse(snap.takenAt);
  if (Number.isFinite(at)) set.add('iscsi_console_last_read_timestamp_seconds', {}, at / 1000);
  const errors = w?.readErrors ?? {};
  for (const [source, n] of Object.entries(errors)) set.add('iscsi_console_read_errors_total', { source }, n);
  set.add('iscsi_console_series_dropped_total', {}, w ? w.seriesDropped : dropped);
  if (!w) return;
  for (const c of w.stateChanges)
    set.add(
      'iscsi_session_state_changes_total',
      sessionLabels({ targetIqn: c.target, portal: c.portal, iface: c.iface }),
      c.count,
    );
  for (const e of w.events) set.add('iscsi_events_total', { kind: e.kind, severity: e.severity }, e.count);
}

/** Families about the exporter and its watcher: renewed every scrape, the rest only per snapshot. */
export const isExporterFamily = (n: FamilyName): boolean =>
  n.startsWith('iscsi_console_') || WATCHER_FAMILIES.has(n);

/**
 * The families a snapshot alone decides (sessions, devices, volumes, portals, problems), and how
 * many series --max-sessions left out. The same for the same snapshot: `serve` renders them once.
 */
export function snapshotMetrics(snap: Snapshot, maxSessions = DEFAULT_MAX_SESSIONS): NodeMetrics {
  const max = Math.max(0, maxSessions);
  const set = new CollectingSet();
  const { kept, dropped } = splitSessions(snap, max);
  for (const s of kept) addSession(set, s);
  const droppedSet = new CountingSet();
  for (const s of dropped) addSession(droppedSet, s);
  addVolumes(set, snap, new Map(kept.map((s) => [s.sid, s])));
  if (dropped.length > 0) addVolumes(droppedSet, snap, new Map(dropped.map((s) => [s.sid, s])));
  addPortals(set, snap, max);
  if (snap.iscsid !== undefined) set.add('iscsi_iscsid_up', {}, snap.iscsid === 'down' ? 0 : 1);
  addProblems(set, snap);
  return { families: set.families((n) => !isExporterFamily(n)), dropped: droppedSet.count };
}

/** The exporter's own families (build, reads, drops; the watcher's counters in serve). */
export function exporterMetrics(snap: Snapshot, options: MetricsOptions, dropped: number): MetricFamily[] {
  const set = new CollectingSet();
  addExporter(set, snap, options, dropped);
  const watcher = options.watcher !== undefined;
  return set.families((n) => isExporterFamily(n) && (watcher || !WATCHER_FAMILIES.has(n)));
}

/** Every family of one snapshot, and how many series --max-sessions left out of them. */
export function nodeMetrics(snap: Snapshot, options: MetricsOptions): NodeMetrics {
  const node = snapshotMetrics(snap, options.maxSessions);
  return {
    families: [...node.families, ...exporterMetrics(snap, options, node.dropped)],
    dropped: node.dropped,
  };
}

/**
 * A duration in seconds to the microsecond: a fractional millisecond count divided by 1000 carries
 * binary noise (331.79 ms printed as 0.33179000000000003) that no reader of the figure wants.
 */
function microseconds(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}
