/**
 * The session detail, as lines: everything `iscsiadm -m session -P 3`, `lsblk` and `multipath -ll`
 * would tell, joined along the chain LUN → sdX → dm → mounts → kubelet volume → pod, with the
 * console's verdict beside kubelet's own isSessionBusy answer and the reasons behind both.
 */

import {
  clockTime,
  describeBinds,
  describeRecovery,
  downScopeOf,
  downWords,
  fsWords,
  kubeletLunProblem,
  kubeletOnDetachText,
  lunLabel,
  metadataSourceText,
  multipathLlLines,
  pathDown,
  podLabel,
  recoveryClock,
  type SurfaceAction,
  stuckProbeOf,
  stuckRecoveries,
} from '../../app/domain.js';
import type {
  Connection,
  MultipathMap,
  PortalProbe,
  ScsiDevice,
  Session,
  SessionParams,
  Snapshot,
} from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';
import { formatBytes } from '../format.js';
import { HEALTH_LOOK, stateTone, VERDICT_LOOK } from '../theme.js';
import { csiDetailLines } from './csi-detail.js';
import { portalMatrixLines } from './portal-matrix.js';

/**
 * `now` (host clock, ms) dates the kernel's recovery countdown; without it the countdown is not
 * shown as a number (the lines are then the same whatever the time).
 */
export function sessionDetailLines(
  snap: Snapshot,
  s: Session,
  now?: number,
  /** The console's actions: the portal matrix's repair hints then name their keys. */
  actions?: readonly SurfaceAction[],
): Line[] {
  const v = VERDICT_LOOK[s.verdict];
  const h = HEALTH_LOOK[s.health];
  const lines: Line[] = [
    { text: `Session ${s.sid}  ${s.targetIqn}`, bold: true },
    {
      text: `  portal ${s.portal},${s.tpgt}   iface ${s.iface}   host ${s.hostNumber ?? '-'} (${s.hostState ?? '?'})`,
    },
    { text: `  local ${s.ipaddress ?? '-'}${s.netdev ? ` (${s.netdev})` : ''}`, tone: 'dim' },
    ...kernelStateLines(snap, s, now),
    { text: `  initiator ${s.initiatorName ?? snap.node.initiatorName ?? '?'}`, tone: 'dim' },
    { text: '' },
    {
      text: `Verdict  ${v.symbol} ${s.verdict}    Health  ${h.symbol} ${s.health}`,
      tone: v.tone,
      bold: true,
    },
    {
      text: kubeletOnDetachText(s.kubeletBusy),
      tone: s.kubeletDisagreement ? 'warn' : 'dim',
    },
  ];
  if (s.kubeletDisagreement)
    lines.push({ text: `  ⚠ kubelet disagrees: ${s.kubeletDisagreement}`, tone: 'warn' });
  for (const r of s.reasons) lines.push({ text: `  • ${r}` });
  lines.push({ text: '' }, { text: `Connections (${s.connections.length})`, bold: true });
  for (const c of s.connections) {
    const now = c.address ? `${c.address}:${c.port ?? '?'}` : 'not connected (ENOTCONN)';
    const persistent = c.persistentAddress ? `${c.persistentAddress}:${c.persistentPort ?? '?'}` : '?';
    lines.push({
      text: `  ${c.name}  ${c.state ?? ''}  current ${now}  persistent ${persistent}`,
      tone: stateTone(c.state ?? (c.address ? 'up' : 'down')),
    });
    lines.push(...connectionParamLines(c));
  }
  lines.push(...sessionParamLines(s.params));
  lines.push(
    { text: '' },
    { text: `LUNs → devices → maps → mounts → kubelet → pods (${s.devices.length})`, bold: true },
  );
  if (s.devices.length === 0) lines.push({ text: '  no SCSI devices on this session', tone: 'dim' });
  for (const d of s.devices) lines.push(...deviceLines(snap, d, now));
  const vols = snap.kubelet.volumes.filter(
    (kv) => kv.sessions.includes(s.sid) || s.kubeletVolumes.includes(kv.path),
  );
  lines.push({ text: '' }, { text: `Kubelet volumes (${vols.length})`, bold: true });
  if (vols.length === 0) lines.push({ text: '  no kubelet volume refers to this session', tone: 'dim' });
  for (const kv of vols) {
    lines.push({ text: `  ${kv.path}`, tone: kv.problems.length ? 'warn' : undefined });
    lines.push({
      text: `      ${kv.mode}, lun ${kv.lun}, ${kv.mounted ? 'mounted' : 'not mounted'}, ${metadataSourceText(kv.metadataSource)}`,
      tone: 'dim',
    });
    for (const p of kv.problems) lines.push({ text: `      ⚠ ${p}`, tone: 'warn' });
    const pods = snap.kubelet.podVolumes.filter((pv) => pv.globalPath === kv.path);
    for (const pv of pods) {
      lines.push({
        text: `      → pod ${podLabel(snap.kubelet.pods, pv.podUid)} volume ${pv.volName}${pv.mounted ? '' : ' (not mounted)'}`,
      });
      if (snap.kubelet.pods?.[pv.podUid]) lines.push({ text: `          uid ${pv.podUid}`, tone: 'dim' });
    }
  }
  const other = s.pods.filter(
    (p) =>
      !snap.kubelet.podVolumes.some((pv) => pv.podUid === p && vols.some((kv) => kv.path === pv.globalPath)),
  );
  for (const p of other) lines.push({ text: `  → pod ${podLabel(snap.kubelet.pods, p)}` });
  lines.push(...csiDetailLines(snap, s));
  // The target's portals as its volumes expect them, beside what is (portal × session × path).
  lines.push(...portalMatrixLines(snap, s.targetIqn, s.portal, actions));
  return lines;
}

/**
 * The kernel's own view of the session, as `iscsiadm -m session -P 3` prints it from sysfs: session
 * and connection state, recovery_tmo, and how long before the kernel fails queued I/O.
 */
function kernelStateLines(snap: Snapshot, s: Session, now: number | undefined): Line[] {
  const conns = s.connections.map((c) => `${c.name} ${c.state ?? '?'}`).join(', ') || 'none';
  const lines: Line[] = [
    {
      text: `  kernel: session ${s.state}   connection ${conns}   recovery_tmo ${s.recoveryTmo === -1 ? 'off' : `${s.recoveryTmo ?? '?'} s`}`,
      tone: stateTone(s.state),
    },
  ];
  const stuck = stuckProbeOf(snap, s);
  if (stuck) return [...lines, ...stuckLines(snap, s, stuck)];
  const down = downScopeOf(snap, s);
  if (!down) return lines;
  lines.push({
    text: `  ${down.scope === 'portal' ? `${down.outage.summary} (the whole portal)` : down.summary}`,
    tone: 'bad',
    bold: true,
  });
  const clock = now === undefined ? recoveryClock({ ...s, downSeenAt: undefined }, 0) : recoveryClock(s, now);
  lines.push({ text: `  recovery: ${describeRecovery(clock)}`, tone: 'warn' });
  if (s.downSeenAt)
    lines.push({
      text: `  ${downWords(s.downSeenAt, now ?? Date.parse(snap.takenAt), s.downObserved === true)}`,
      tone: 'dim',
    });
  return lines;
}

/**
 * A stuck session (down while the probe found its portal answering): the facts (state, time down,
 * recovery_tmo, the probe) and the recoveries an admin would consider, each with its risk. No
 * automatic repair is offered for one in use.
 */
function stuckLines(snap: Snapshot, s: Session, probe: PortalProbe): Line[] {
  const out: Line[] = [
    {
      text: `  stuck: ${s.state} while portal ${s.portal} answers (probed ${clockTime(probe.at)}: ${probe.detail})`,
      tone: 'bad',
      bold: true,
    },
  ];
  if (s.downSeenAt)
    out.push({
      text: `  ${downWords(s.downSeenAt, Date.parse(snap.takenAt), s.downObserved === true)}`,
      tone: 'dim',
    });
  const inUse = s.verdict === 'in-use' || s.pods.length > 0;
  const mapsUp = s.devices.some((d) =>
    snap.multipath.some(
      (m) => d.name && m.slaves.includes(d.name) && m.slaves.length > m.failedSlaves.length,
    ),
  );
  out.push({
    text: inUse ? '  in use: no automatic repair; what an admin would consider:' : '  nothing uses it:',
  });
  for (const r of stuckRecoveries({ inUse, otherPathsUp: mapsUp }))
    out.push({
      text: `    [${r.risk} risk] ${r.what}: ${r.why}`,
      tone: r.risk === 'high' ? 'bad' : r.risk === 'medium' ? 'warn' : 'dim',
    });
  return out;
}

/** What the connection negotiated, worded as `iscsiadm -m session -P 3` prints it. */
function connectionParamLines(c: Connection): Line[] {
  const p = c.params;
  if (!p) return [];
  const out: Line[] = [];
  const digests = [
    p.headerDigest !== undefined ? `HeaderDigest ${p.headerDigest}` : undefined,
    p.dataDigest !== undefined ? `DataDigest ${p.dataDigest}` : undefined,
  ].filter(Boolean);
  if (digests.length > 0) out.push({ text: `    ${digests.join('  ')}`, tone: 'dim' });
  const lengths = [
    p.maxRecvDataSegmentLength !== undefined
      ? `MaxRecvDataSegmentLength ${p.maxRecvDataSegmentLength}`
      : undefined,
    p.maxXmitDataSegmentLength !== undefined
      ? `MaxXmitDataSegmentLength ${p.maxXmitDataSegmentLength}`
      : undefined,
  ].filter(Boolean);
  if (lengths.length > 0) out.push({ text: `    ${lengths.join('  ')}`, tone: 'dim' });
  return out;
}

const yesNo = (v: boolean | undefined) => (v === undefined ? undefined : v ? 'Yes' : 'No');

/** `key value` pairs with a value, two spaces apart (none: undefined). */
function pairs(list: [string, string | number | undefined][]): string | undefined {
  const shown = list.filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${v}`);
  return shown.length > 0 ? shown.join('  ') : undefined;
}

/** The session's negotiated parameters and timeouts, as iscsiadm -P 3 names them (at most ~78 columns a line). */
function sessionParamLines(p: SessionParams | undefined): Line[] {
  if (!p) return [];
  const rows = [
    pairs([
      ['FirstBurstLength', p.firstBurstLength],
      ['MaxBurstLength', p.maxBurstLength],
      ['MaxOutstandingR2T', p.maxOutstandingR2T],
    ]),
    pairs([
      ['ImmediateData', yesNo(p.immediateData)],
      ['InitialR2T', yesNo(p.initialR2T)],
      ['ErrorRecoveryLevel', p.erl],
    ]),
    pairs([
      ['DataPDUInOrder', yesNo(p.dataPduInOrder)],
      ['DataSequenceInOrder', yesNo(p.dataSequenceInOrder)],
    ]),
    pairs([
      // Recovery (recovery_tmo) is on the kernel line above.
      ['Timeouts (s): Target Reset', p.targetResetTmo],
      ['LUN Reset', p.lunResetTmo],
      ['Abort', p.abortTmo],
    ]),
  ].filter((r): r is string => r !== undefined);
  if (rows.length === 0) return [];
  return [
    { text: '' },
    { text: 'Negotiated iSCSI params', bold: true },
    ...rows.map((text) => ({ text: `  ${text}`, tone: 'dim' as const })),
  ];
}

/** `12 s ago` from an ISO time, or the time itself without a clock. */
function age(iso: string, now: number | undefined): string {
  if (now === undefined) return `at ${iso}`;
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 120 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

/** A multipath map above a device: its state, filesystem, mounts and `multipath -ll` topology. */
function mapLines(m: MultipathMap, now: number | undefined): Line[] {
  const ok = m.slaves.length - m.failedSlaves.length;
  const down = m.topology?.pathGroups.some((g) => g.paths.some(pathDown)) ?? false;
  const out: Line[] = [
    {
      text: `      → ${m.name} ${m.alias} (${ok}/${m.slaves.length} paths ok)${m.suspended ? ' SUSPENDED' : ''}`,
      tone: m.failedSlaves.length > 0 || down || m.suspended ? 'warn' : undefined,
    },
  ];
  const fs = fsWords(m.fs);
  if (fs) out.push({ text: `          fs ${fs}`, tone: 'dim' });
  const ll = multipathLlLines(m);
  if (ll.length > 0 && m.topology) {
    for (const l of ll)
      out.push({ text: `          ${l}`, tone: / (failed|faulty|offline|blocked)/.test(l) ? 'warn' : 'dim' });
    out.push({
      text: `          (from ${m.topology.source}, read ${age(m.topology.readAt, now)})`,
      tone: 'dim',
    });
  }
  for (const mp of m.mountpoints) out.push({ text: `          → mounted at ${mp}`, tone: 'ok' });
  return out;
}

/**
 * One LUN and what sits on it. Each mount is listed once, where it is: a multipath map's mounts
 * under the map, and only the device's (and its partitions') own mounts under the device —
 * ScsiDevice.mountpoints also holds its holders' mounts, as lsblk does.
 */
export function deviceLines(snap: Snapshot, d: ScsiDevice, now: number | undefined): Line[] {
  const lines: Line[] = [
    {
      text: `  LUN ${lunLabel(d)}  ${d.hctl}  ${d.name ?? '(sg only)'}  ${d.state ?? '?'}  ${formatBytes(d.sizeBytes)}  ${d.vendor ?? ''} ${d.model ?? ''}`.trimEnd(),
      tone: stateTone(d.state),
    },
  ];
  const kubeletProblem = kubeletLunProblem(d.lun);
  if (kubeletProblem) lines.push({ text: `      ! ${kubeletProblem}`, tone: 'warn' });
  if (d.wwid) lines.push({ text: `      wwid ${d.wwid}`, tone: 'dim' });
  const fs = fsWords(d.fs);
  if (fs) lines.push({ text: `      fs ${fs}`, tone: 'dim' });
  for (const p of d.byPath) lines.push({ text: `      by-path ${p}`, tone: 'dim' });
  for (const part of d.partitions) {
    const pfs = fsWords(d.partitionFs?.[part]);
    lines.push({ text: `      partition ${part}${pfs ? `  ${pfs}` : ''}` });
  }
  const viaMaps = new Set<string>();
  for (const holder of d.holders) {
    const m = snap.multipath.find((x) => x.name === holder);
    if (!m) {
      lines.push({ text: `      → ${holder}` });
      continue;
    }
    for (const mp of m.mountpoints) viaMaps.add(mp);
    lines.push(...mapLines(m, now));
  }
  for (const mp of d.mountpoints) {
    if (!viaMaps.has(mp)) lines.push({ text: `      → mounted at ${mp}`, tone: 'ok' });
  }
  for (const b of d.blockBinds ?? [])
    lines.push({ text: `      → ${describeBinds([b], snap.kubelet.pods)}`, tone: 'ok' });
  if (d.swap) lines.push({ text: '      → swap', tone: 'warn' });
  for (const l of d.loops) lines.push({ text: `      → loop ${l} (block volume)` });
  return lines;
}
