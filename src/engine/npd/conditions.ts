/**
 * node-problem-detector's custom-plugin contract (https://github.com/kubernetes/node-problem-detector/blob/master/docs/custom_plugin_monitor.md;
 * pkg/custompluginmonitor/types/types.go there): a check exits 0 when its
 * condition is false (OK), 1 when true (NonOK), anything else when it cannot tell (Unknown), and
 * prints one line NPD copies into the condition's message — cut at 80 characters by default
 * (types/config.go `max_output_length`). Each condition here reads facts the engine already has:
 * outages (outages.ts), health and verdicts (verdicts.ts), the problems rule (problems.ts), the
 * doctor's checks.
 */
import type { DoctorReport } from '../doctor/types.js';
import type { Session, Snapshot } from '../model.js';
import { nodeProblems, problemSortKey } from '../snapshot/problems.js';
import { plural } from '../text/plural.js';
import { safeText } from '../text/safe-text.js';

/** The NPD plugin statuses (types.go: OK 0, NonOK 1, Unknown 2). */
const NPD_OK = 0;
const NPD_NON_OK = 1;
export const NPD_UNKNOWN = 2;

/** NPD's default max_output_length. */
const NPD_MAX_LINE = 80;

const SNAPSHOT_CONDITIONS = ['outage', 'failed', 'degraded', 'stale'] as const;
export const CONDITIONS = [...SNAPSHOT_CONDITIONS, 'iscsid', 'doctor'] as const;
export type SnapshotCondition = (typeof SNAPSHOT_CONDITIONS)[number];
export type Condition = (typeof CONDITIONS)[number];

export interface CheckResult {
  status: typeof NPD_OK | typeof NPD_NON_OK | typeof NPD_UNKNOWN;
  /** One line, at most NPD_MAX_LINE characters, printable. */
  line: string;
}

/** One printable line of at most 80 characters (node text escaped, cut with `…`). */
export function npdLine(text: string): string {
  const one = safeText(text.replace(/\s+/g, ' ').trim());
  const chars = [...one];
  return chars.length <= NPD_MAX_LINE ? one : `${chars.slice(0, NPD_MAX_LINE - 1).join('')}…`;
}

const result = (status: CheckResult['status'], text: string): CheckResult => ({
  status,
  line: npdLine(text),
});

function podsOf(sessions: readonly Session[]): number {
  const pods = new Set<string>();
  for (const s of sessions) {
    for (const p of s.pods) pods.add(p);
    for (const c of s.claims ?? []) for (const p of c.pods) pods.add(p);
  }
  return pods.size;
}

/** The worst-first order of the problems rule (severity, then the longest-standing). */
function worstFirst(snap: Snapshot, sessions: Session[]): Session[] {
  const p = nodeProblems(snap).sessions;
  return sessions.sort(
    (a, b) => problemSortKey(p.get(a.key)!) - problemSortKey(p.get(b.key)!) || a.sid - b.sid,
  );
}

const sessionName = (s: Session) => `${s.targetIqn} @ ${s.portal || '?'}`;

function outage(snap: Snapshot): CheckResult {
  if (snap.outages.length === 0) return result(NPD_OK, 'no portal down');
  const o = [...snap.outages].sort((a, b) => b.sessions.length - a.sessions.length)[0]!;
  const sessions = snap.sessions.filter((s) => o.sessions.includes(s.sid));
  const more = snap.outages.length > 1 ? ` (+${plural(snap.outages.length - 1, 'portal')})` : '';
  return result(
    NPD_NON_OK,
    `portal ${o.portal} down: ${plural(o.sessions.length, 'session')}, ${plural(podsOf(sessions), 'pod')}${more}`,
  );
}

function failed(snap: Snapshot): CheckResult {
  const bad = worstFirst(
    snap,
    snap.sessions.filter((s) => !s.pending && s.health === 'failed'),
  );
  if (bad.length === 0) return result(NPD_OK, 'no failed session');
  const s = bad[0]!;
  return result(NPD_NON_OK, `${plural(bad.length, 'session')} failed: ${s.state} ${sessionName(s)}`);
}

function degraded(snap: Snapshot): CheckResult {
  const problems = nodeProblems(snap);
  const maps = snap.multipath.filter((m) => problems.maps.get(m.name)?.severity === 'degraded');
  const sessions = snap.sessions.filter((s) => !s.pending && s.health === 'degraded');
  if (maps.length === 0 && sessions.length === 0) return result(NPD_OK, 'no degraded path');
  if (maps.length > 0) {
    const m = maps[0]!;
    return result(NPD_NON_OK, `${plural(maps.length, 'map')} degraded: ${problems.maps.get(m.name)!.reason}`);
  }
  const s = worstFirst(snap, sessions)[0]!;
  return result(NPD_NON_OK, `${plural(sessions.length, 'session')} degraded: ${sessionName(s)}`);
}

function stale(snap: Snapshot): CheckResult {
  const left = snap.sessions.filter((s) => !s.pending && (s.verdict === 'stale' || s.verdict === 'orphaned'));
  if (left.length === 0) return result(NPD_OK, 'no stale or orphaned session');
  const s = left.sort((a, b) => a.sid - b.sid)[0]!;
  return result(
    NPD_NON_OK,
    `${plural(left.length, 'session')} stale or orphaned: ${s.verdict} ${sessionName(s)}`,
  );
}

/** A condition a snapshot decides. A first look (partial) cannot tell. */
export function snapshotCondition(c: SnapshotCondition, snap: Snapshot): CheckResult {
  if (snap.partial) return result(NPD_UNKNOWN, 'node not read in full');
  switch (c) {
    case 'outage':
      return outage(snap);
    case 'failed':
      return failed(snap);
    case 'degraded':
      return degraded(snap);
    case 'stale':
      return stale(snap);
  }
}

/** `doctor`: true when a doctor check failed (warnings are not a node problem). */
export function doctorCondition(report: DoctorReport): CheckResult {
  const fails = report.checks.filter((c) => c.status === 'fail');
  if (fails.length === 0) return result(NPD_OK, `doctor: no check failed (${report.summary.warn} warnings)`);
  const f = fails[0]!;
  return result(NPD_NON_OK, `doctor: ${plural(fails.length, 'check')} failed: ${f.title}: ${f.evidence}`);
}

/** `iscsid`: true when the doctor's iscsid check fails; a skipped check cannot tell. */
export function iscsidCondition(report: DoctorReport): CheckResult {
  const c = report.checks[0];
  if (!c || c.status === 'skip')
    return result(NPD_UNKNOWN, `iscsid: cannot tell${c ? `: ${c.evidence}` : ''}`);
  if (c.status === 'fail') return result(NPD_NON_OK, `iscsid down: ${c.evidence}`);
  return result(NPD_OK, `iscsid up: ${c.evidence}`);
}
