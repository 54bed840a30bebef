/**
 * The readable `status` view (src/cli/commands/status.ts loads it only to print it: `status --json`
 * never pays for the view's modules at start-up).
 */
import { describeBinds } from '../../engine/actions/lookup.js';
import { kubeletLunProblem, lunLabel } from '../../engine/iscsi/lun.js';
import type { Health, Snapshot, Verdict } from '../../engine/model.js';
import { deviceClaimText } from '../../engine/snapshot/csi/describe.js';
import { outageDetail } from '../../engine/snapshot/outages.js';
import { podLabel } from '../../engine/snapshot/pod-names.js';
import { type NodeProblems, nodeProblems } from '../../engine/snapshot/problems.js';
import { stuckReason } from '../../engine/snapshot/stuck.js';
import { fsWords } from '../../engine/text/fs-words.js';
import { multipathLlLines } from '../../engine/text/multipath-ll.js';
import { portalMatrixLine } from '../../engine/text/portal-matrix.js';
import { safeDeep, safeText } from '../../engine/text/safe-text.js';
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

/** The readable `status` view of a snapshot: sessions (with reasons), kubelet volumes, CSI volumes and drivers, multipath maps, problems. */
export function formatStatus(raw: Snapshot, paint: Paint): string {
  // Every node-sourced string made visible before it is measured and padded (no raw control bytes).
  const snap = safeDeep(raw);
  const out: string[] = [];
  const n = snap.node;
  out.push(
    paint(`node ${n.hostname}`, 'bold') +
      `  (${n.kind === 'real' ? 'this node' : `root ${n.root}`}, kubelet ${n.kubeletRoot}` +
      `${n.initiatorName ? `, initiator ${n.initiatorName}` : ''}${n.iscsiLoaded ? '' : ', iSCSI modules not loaded'})`,
  );
  // What is wrong, in one line, on top: the console's summary line, from the same problems rule.
  const problems = nodeProblems(raw);
  const worst = problems.worst === 'failed' ? 'red' : problems.worst === 'ok' ? 'green' : 'yellow';
  out.push(paint(problems.summary, worst));
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
  formatSessions(snap, paint, out);
  out.push('');
  formatKubeletVolumes(snap, paint, out);
  formatPodVolumes(snap, paint, out);
  out.push(...formatCsiSection(snap, paint));
  out.push('');
  formatMultipath(snap, paint, out);
  out.push('');
  out.push(paint(`PROBLEMS (${snap.problems.length})`, 'bold'));
  if (snap.problems.length === 0) out.push('  none');
  for (const p of snap.problems) out.push(`  ! ${p}`);
  return `${out.join('\n')}\n`;
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

/** The sessions' table, then each session's reasons, kubelet's answer and devices. */
function formatSessions(snap: Snapshot, paint: Paint, out: string[]): void {
  out.push(paint(`SESSIONS (${snap.sessions.length})`, 'bold'));
  if (snap.sessions.length === 0) out.push('  none');
  else {
    const rows = snap.sessions.map((s) => [
      String(s.sid),
      s.targetIqn,
      s.portal || '-',
      s.iface,
      s.state,
      s.hostNumber === undefined ? '-' : String(s.hostNumber),
      s.devices
        .map((d) => `${d.name ?? `lun${d.lun}`}${d.state === 'running' ? '' : `(${d.state ?? '?'})`}`)
        .join(',') || '-',
      s.verdict,
      s.health,
    ]);
    out.push(
      ...table(
        ['SID', 'TARGET', 'PORTAL', 'IFACE', 'STATE', 'HOST', 'DEVICES', 'VERDICT', 'HEALTH'],
        rows,
        (r, c) =>
          c === 7
            ? VERDICT_COLOR[snap.sessions[r]!.verdict]
            : c === 8
              ? HEALTH_COLOR[snap.sessions[r]!.health]
              : undefined,
        paint,
      ),
    );
    out.push('');
    for (const s of snap.sessions) {
      out.push(`session ${s.sid} (${s.targetIqn} via ${s.portal || '?'}): ${s.verdict}, ${s.health}`);
      for (const r of s.reasons) out.push(`  - ${r}`);
      out.push(`  - kubelet isSessionBusy: ${s.kubeletBusy ? 'busy' : 'not busy'}`);
      if (s.kubeletDisagreement) out.push(`  ! ${paint(s.kubeletDisagreement, 'yellow')}`);
      for (const d of s.devices) out.push(...deviceLines(d, paint));
    }
  }
}

type Device = Snapshot['sessions'][number]['devices'][number];

/** One device of a session: what it is, holds and is used by; kubelet's LUN number problem. */
function deviceLines(d: Device, paint: Paint): string[] {
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
    d.blockBinds?.length ? describeBinds(d.blockBinds) : undefined,
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
      v.metadataSource,
      v.mounted ? 'yes' : 'no',
      v.sessions.join(',') || '-',
      v.pods.join(',') || '-',
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
