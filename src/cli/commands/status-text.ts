/**
 * The readable `status` view (src/cli/commands/status.ts loads it only to print it: `status --json`
 * never pays for the view's modules at start-up).
 */
import { describeBinds } from '../../engine/actions/lookup.js';
import { kubeletLunProblem, lunLabel } from '../../engine/iscsi/lun.js';
import type { Health, Session, Snapshot, Verdict } from '../../engine/model.js';
import { deviceClaimText } from '../../engine/snapshot/csi/describe.js';
import { outageDetail } from '../../engine/snapshot/outages.js';
import {
  csiVolumePath,
  type NodeProblems,
  nodeProblems,
  type Severity,
} from '../../engine/snapshot/problems.js';
import { stuckReason } from '../../engine/snapshot/stuck.js';
import { fsWords } from '../../engine/text/fs-words.js';
import { kubeletOnDetachText, metadataSourceWord } from '../../engine/text/kubelet-words.js';
import { multipathLlLines } from '../../engine/text/multipath-ll.js';
import { type PodNames, podLabel } from '../../engine/text/pod-names.js';
import { portalMatrixLine } from '../../engine/text/portal-matrix.js';
import { safeDeep, safeText } from '../../engine/text/safe-text.js';
import { cellOf, DEFAULT_COLUMNS } from './status-columns.js';
import { formatCsiSection } from './status-csi.js';
import { ANSI, type Paint, table } from './status-table.js';

const VERDICT_COLOR: Record<Verdict, keyof typeof ANSI> = {
  'in-use': 'green',
  foreign: 'yellow',
  orphaned: 'red',
  outage: 'yellow',
  stale: 'red',
  claimed: 'cyan',
};
const HEALTH_COLOR: Record<Health, keyof typeof ANSI> = { ok: 'green', degraded: 'yellow', failed: 'red' };
const SEVERITY_COLOR: Record<Severity, keyof typeof ANSI> = {
  failed: 'red',
  degraded: 'yellow',
  outage: 'yellow',
  stale: 'yellow',
  orphaned: 'yellow',
  warning: 'yellow',
  ok: 'green',
};

function size(bytes: number | undefined): string {
  if (bytes === undefined) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)}${units[u]}`;
}

/** What `status` was asked to show beyond the snapshot itself. */
export interface StatusView {
  /** The whole node (the summary and the problems rule read it), when `shown` is narrowed by filters. */
  node?: Snapshot;
  /** The sessions table's columns (Session field names); DEFAULT_COLUMNS when not given. */
  columns?: readonly (keyof Session)[];
  /** The filters as given, when some were. */
  said?: readonly string[];
  /** A `--demo` scenario's note (what it serves), printed under the node line. */
  note?: string;
}

/** The readable `status` view of a snapshot: sessions (with reasons), kubelet volumes, CSI volumes and drivers, multipath maps, problems. */
export function formatStatus(raw: Snapshot, paint: Paint, view: StatusView = {}): string {
  // Every node-sourced string made visible before it is measured and padded (no raw control bytes).
  const snap = safeDeep(raw);
  const whole = view.node ?? raw;
  const out: string[] = [];
  const n = snap.node;
  out.push(
    paint(`node ${n.hostname}`, 'bold') +
      `  (${n.kind === 'real' ? 'this node' : `root ${n.root}`}, kubelet ${n.kubeletRoot}` +
      `${n.initiatorName ? `, initiator ${n.initiatorName}` : ''}${n.iscsiLoaded ? '' : ', iSCSI modules not loaded'})`,
  );
  if (view.note) out.push(...view.note.split('\n').map((l) => `  ${l}`));
  // What is wrong, in one line, on top: the console's summary line, from the same problems rule,
  // always of the whole node (a filter narrows the rows, never what the node is).
  const problems = nodeProblems(whole);
  const worst = problems.worst === 'failed' ? 'red' : problems.worst === 'ok' ? 'green' : 'yellow';
  out.push(paint(problems.summary, worst));
  if (view.said)
    out.push(
      `showing ${raw.sessions.length} of ${whole.sessions.length} session${whole.sessions.length === 1 ? '' : 's'} (${view.said.join(' ')}) and what belongs to them`,
    );
  // Outages first: an admin (or a log scraper) must see "the array is down" before any session.
  if (snap.outages.length > 0) {
    out.push('');
    out.push(paint(`OUTAGES (${snap.outages.length})`, 'bold'));
    for (const o of snap.outages)
      out.push(`  ! ${paint(o.summary, 'red')} (${outageDetail(o, Date.parse(snap.takenAt))})`);
  }
  out.push(...formatStuckAndFs(snap, paint));
  out.push(...formatExpected(raw, problems, paint));
  out.push('');
  formatSessions(snap, paint, out, view.columns ?? DEFAULT_COLUMNS);
  out.push('');
  formatKubeletVolumes(snap, paint, out);
  formatPodVolumes(snap, paint, out);
  out.push(...formatCsiSection(snap, paint));
  out.push('');
  formatMultipath(snap, paint, out);
  out.push(...formatProblems(snap, problems, paint));
  return `${out.join('\n')}\n`;
}

/**
 * The closing list: every session, kubelet volume and CSI volume shown that the problems rule finds
 * something wrong with — the items the summary line on top counts ("2 failed · 1 degraded" is two
 * failed and one degraded session below), so the two never disagree. What could not be read
 * (the snapshot's own `problems`) is its own section: a read problem is not a node problem.
 */
function formatProblems(snap: Snapshot, problems: NodeProblems, paint: Paint): string[] {
  const lines: string[] = [];
  let sessions = 0;
  let volumes = 0;
  for (const s of snap.sessions) {
    const p = problems.sessions.get(s.key);
    if (!p || p.severity === 'ok') continue;
    sessions++;
    lines.push(
      `  ! ${paint(p.severity, SEVERITY_COLOR[p.severity])} session ${s.sid} ${s.targetIqn} @ ${s.portal || '?'}: ${p.reason}`,
    );
  }
  for (const v of snap.kubelet.volumes) {
    const p = problems.volumes.get(v.path);
    if (!p || p.severity === 'ok') continue;
    volumes++;
    lines.push(`  ! ${paint(p.severity, SEVERITY_COLOR[p.severity])} kubelet volume ${v.path}: ${p.reason}`);
  }
  for (const v of snap.csi?.volumes ?? []) {
    const p = problems.csiVolumes.get(csiVolumePath(v));
    if (!p || p.severity === 'ok') continue;
    volumes++;
    lines.push(
      `  ! ${paint(p.severity, SEVERITY_COLOR[p.severity])} CSI volume ${csiVolumePath(v)}: ${p.reason}`,
    );
  }
  const counts = [
    sessions ? `${sessions} session${sessions === 1 ? '' : 's'}` : '',
    volumes ? `${volumes} volume${volumes === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const out = ['', paint(`PROBLEMS (${counts.join(', ') || 'none'})`, 'bold'), ...lines];
  if (lines.length === 0) out.push('  none');
  if (snap.problems.length > 0) {
    out.push('', paint(`NOT READ (${snap.problems.length})`, 'bold'));
    for (const p of snap.problems) out.push(`  ! ${p}`);
  }
  return out;
}

/**
 * Stuck sessions (the probe found the portal answering: the node's to repair, not the array's) and
 * filesystems the kernel stopped or that carry old errors (every pod on one fails its writes).
 */
function formatStuckAndFs(snap: Snapshot, paint: Paint): string[] {
  const out: string[] = [];
  if (snap.stuck && snap.stuck.length > 0) {
    out.push('', paint(`STUCK (${snap.stuck.length})`, 'bold'));
    for (const p of snap.stuck) {
      out.push(`  ! ${paint(p.summary, 'red')} (${p.probe.detail})`);
      for (const sid of p.sessions) {
        const x = snap.sessions.find((y) => y.sid === sid);
        if (x) out.push(`    ${stuckReason(x, p.probe)}`);
      }
    }
  }
  if (snap.fsErrors && snap.fsErrors.length > 0) {
    out.push('', paint(`FILESYSTEMS (${snap.fsErrors.length})`, 'bold'));
    for (const e of snap.fsErrors)
      out.push(
        `  ${e.state === 'failing' ? '!' : '-'} ${paint(safeText(e.summary), e.state === 'failing' ? 'red' : 'yellow')}`,
      );
  }
  return out;
}

/**
 * Volumes short of what their metadata expects (docs/status-schema.md#expected-state): each problem
 * with the command that repairs it, then each such target's portal matrix.
 */
function formatExpected(raw: Snapshot, problems: NodeProblems, paint: Paint): string[] {
  if (problems.expected.size === 0) return [];
  const out = ['', paint(`EXPECTED PATHS (${problems.expected.size} short)`, 'bold')];
  const short = new Set<string>();
  for (const v of raw.expected?.volumes ?? []) {
    const p = problems.expected.get(v.path);
    if (!p) continue;
    short.add(v.iqn);
    out.push(`  ! ${paint(safeText(p.reason), p.severity === 'failed' ? 'red' : 'yellow')}`);
    if (p.hint) out.push(`    → ${p.hint}`);
  }
  for (const t of raw.expected?.targets ?? []) {
    if (!short.has(t.iqn)) continue;
    out.push(`  ${safeText(t.iqn)}`);
    for (const r of t.portals) out.push(`    ${safeText(portalMatrixLine(r))}`);
  }
  return out;
}

/**
 * The sessions' table (headers are the `status --json` field names: status-columns.ts), then each
 * session's reasons, kubelet's answer and devices.
 */
function formatSessions(
  snap: Snapshot,
  paint: Paint,
  out: string[],
  columns: readonly (keyof Session)[],
): void {
  out.push(paint(`SESSIONS (${snap.sessions.length})`, 'bold'));
  if (snap.sessions.length === 0) out.push('  none');
  else {
    const rows = snap.sessions.map((s) => columns.map((c) => cellOf(s, c)));
    const colorOf = (r: number, c: number): keyof typeof ANSI | undefined => {
      const s = snap.sessions[r]!;
      if (columns[c] === 'verdict') return VERDICT_COLOR[s.verdict];
      if (columns[c] === 'health') return HEALTH_COLOR[s.health];
      return undefined;
    };
    out.push(...table([...columns], rows, colorOf, paint));
    out.push('');
    for (const s of snap.sessions) {
      out.push(`session ${s.sid} (${s.targetIqn} via ${s.portal || '?'}): ${s.verdict}, ${s.health}`);
      for (const r of s.reasons) out.push(`  - ${r}`);
      out.push(`  - ${kubeletOnDetachText(s.kubeletBusy)}`);
      if (s.kubeletDisagreement) out.push(`  ! ${paint(s.kubeletDisagreement, 'yellow')}`);
      for (const d of s.devices) out.push(...deviceLines(d, paint, snap.kubelet.pods));
    }
  }
}

type Device = Snapshot['sessions'][number]['devices'][number];

/** One device of a session: what it is, holds and is used by; kubelet's LUN number problem. */
function deviceLines(d: Device, paint: Paint, pods: PodNames): string[] {
  const lines: string[] = [];
  const extra = [
    d.vendor && d.model ? `${d.vendor} ${d.model}` : undefined,
    size(d.sizeBytes),
    fsWords(d.fs) || undefined,
    d.holders.length ? `holders ${d.holders.join(',')}` : undefined,
    d.partitions.length
      ? `partitions ${d.partitions.map((p) => [p, fsWords(d.partitionFs?.[p])].filter(Boolean).join(' ')).join(',')}`
      : undefined,
    d.mountpoints.length ? `mounted ${d.mountpoints.join(',')}` : undefined,
    d.blockBinds?.length ? describeBinds(d.blockBinds, pods) : undefined,
    d.swap ? 'swap' : undefined,
    d.claims?.length ? `claimed by ${d.claims.map(deviceClaimText).join(', ')}` : undefined,
  ].filter(Boolean);
  lines.push(
    `    ${d.hctl} lun ${lunLabel(d)} ${d.name ?? '(no block device)'} ${d.state ?? '?'} ${extra.join('  ')}`.trimEnd(),
  );
  const kubeletProblem = kubeletLunProblem(d.lun);
  if (kubeletProblem) lines.push(`      ! ${paint(kubeletProblem, 'yellow')}`);
  return lines;
}

/** kubelet's global dirs: a table, then each one's problems and notes. */
function formatKubeletVolumes(snap: Snapshot, paint: Paint, out: string[]): void {
  out.push(paint(`KUBELET VOLUMES (${snap.kubelet.volumes.length})`, 'bold'));
  if (snap.kubelet.volumes.length === 0) out.push('  none');
  else {
    const rows = snap.kubelet.volumes.map((v) => [
      v.mode === 'block' ? 'block' : 'fs',
      v.path,
      metadataSourceWord(v.metadataSource),
      v.mounted ? 'yes' : 'no',
      v.sessions.join(',') || '-',
      v.pods.map((u) => podLabel(snap.kubelet.pods, u)).join(', ') || '-',
    ]);
    out.push(...table(['MODE', 'PATH', 'METADATA', 'MOUNTED', 'SESSIONS', 'PODS'], rows));
    for (const v of snap.kubelet.volumes) {
      for (const p of v.problems) out.push(`  ! ${v.path}: ${paint(p, 'yellow')}`);
      for (const note of v.notes ?? []) out.push(`  - ${v.path}: ${note}`);
    }
  }
}

/** The pods' iSCSI volume dirs, when there are any. */
function formatPodVolumes(snap: Snapshot, paint: Paint, out: string[]): void {
  if (snap.kubelet.podVolumes.length > 0) {
    out.push('');
    out.push(paint(`POD VOLUMES (${snap.kubelet.podVolumes.length})`, 'bold'));
    const rows = snap.kubelet.podVolumes.map((p) => [
      podLabel(snap.kubelet.pods, p.podUid),
      p.volName,
      p.mode === 'block' ? 'block' : 'fs',
      p.mounted ? 'yes' : 'no',
      p.globalPath ?? '-',
    ]);
    out.push(...table(['POD', 'VOLUME', 'MODE', 'MOUNTED', 'GLOBAL DIR'], rows));
  }
}

/** The multipath maps: a table, then each map as `multipath -ll` words it. */
function formatMultipath(snap: Snapshot, paint: Paint, out: string[]): void {
  out.push(paint(`MULTIPATH (${snap.multipath.length})`, 'bold'));
  if (snap.multipath.length === 0) out.push('  none');
  else {
    const rows = snap.multipath.map((m) => [
      m.name,
      m.alias,
      m.wwid,
      size(m.sizeBytes),
      m.slaves.join(',') || '-',
      m.failedSlaves.join(',') || '-',
      m.mountpoints.join(',') || '-',
    ]);
    out.push(
      ...table(
        ['NAME', 'ALIAS', 'WWID', 'SIZE', 'SLAVES', 'FAILED', 'MOUNTPOINTS'],
        rows,
        (r, c) => (c === 5 && snap.multipath[r]!.failedSlaves.length > 0 ? 'red' : undefined),
        paint,
      ),
    );
    // Each map as `multipath -ll` words it, from multipathd or the dm table (read without -ll).
    for (const m of snap.multipath) {
      const fs = fsWords(m.fs);
      const ll = multipathLlLines(m);
      if (!fs && ll.length === 0 && !m.suspended) continue;
      out.push(`${m.alias} (${m.wwid}) ${m.name}${m.suspended ? ' SUSPENDED' : ''}${fs ? `  ${fs}` : ''}`);
      for (const l of ll) out.push(`  ${l}`);
    }
  }
}

/** Paints with ANSI colours when `color` is set, else leaves text as it is. */
export function ansiPaint(color: boolean): Paint {
  return (text, c) => (color ? `${ANSI[c]}${text}${ANSI.reset}` : text);
}
