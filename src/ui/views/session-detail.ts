/**
 * The session detail, as lines: everything `iscsiadm -m session -P 3`, `lsblk` and `multipath -ll`
 * would tell, joined along the chain LUN → sdX → dm → mounts → kubelet volume → pod, with the
 * console's verdict beside kubelet's own isSessionBusy answer and the reasons behind both.
 */

import {
  describeBinds,
  describeRecovery,
  downScopeOf,
  kubeletLunProblem,
  lunLabel,
  recoveryClock,
} from '../../app/domain.js';
import type { Session, Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';
import { formatBytes } from '../format.js';
import { HEALTH_LOOK, stateTone, VERDICT_LOOK } from '../theme.js';
import { csiDetailLines } from './csi-detail.js';

/**
 * `now` (host clock, ms) dates the kernel's recovery countdown; without it the countdown is not
 * shown as a number (the lines are then the same whatever the time).
 */
export function sessionDetailLines(snap: Snapshot, s: Session, now?: number): Line[] {
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
      text: `kubelet isSessionBusy: ${s.kubeletBusy ? 'yes (busy: kubelet will not log out)' : 'no (kubelet would log out on detach)'}`,
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
  }
  lines.push(
    { text: '' },
    { text: `LUNs → devices → maps → mounts → kubelet → pods (${s.devices.length})`, bold: true },
  );
  if (s.devices.length === 0) lines.push({ text: '  no SCSI devices on this session', tone: 'dim' });
  for (const d of s.devices) {
    lines.push({
      text: `  LUN ${lunLabel(d)}  ${d.hctl}  ${d.name ?? '(sg only)'}  ${d.state ?? '?'}  ${formatBytes(d.sizeBytes)}  ${d.vendor ?? ''} ${d.model ?? ''}`.trimEnd(),
      tone: stateTone(d.state),
    });
    const kubeletProblem = kubeletLunProblem(d.lun);
    if (kubeletProblem) lines.push({ text: `      ! ${kubeletProblem}`, tone: 'warn' });
    if (d.wwid) lines.push({ text: `      wwid ${d.wwid}`, tone: 'dim' });
    for (const p of d.byPath) lines.push({ text: `      by-path ${p}`, tone: 'dim' });
    for (const part of d.partitions) lines.push({ text: `      partition ${part}` });
    for (const holder of d.holders) {
      const m = snap.multipath.find((x) => x.name === holder);
      const desc = m
        ? `${m.alias} (${m.slaves.length - m.failedSlaves.length}/${m.slaves.length} paths ok)`
        : '';
      lines.push({
        text: `      → ${holder} ${desc}`.trimEnd(),
        tone: m?.failedSlaves.length ? 'warn' : undefined,
      });
      for (const mp of m?.mountpoints ?? []) lines.push({ text: `          → mounted at ${mp}`, tone: 'ok' });
    }
    for (const mp of d.mountpoints) lines.push({ text: `      → mounted at ${mp}`, tone: 'ok' });
    for (const b of d.blockBinds ?? []) lines.push({ text: `      → ${describeBinds([b])}`, tone: 'ok' });
    if (d.swap) lines.push({ text: '      → swap', tone: 'warn' });
    for (const l of d.loops) lines.push({ text: `      → loop ${l} (block volume)` });
  }
  const vols = snap.kubelet.volumes.filter(
    (kv) => kv.sessions.includes(s.sid) || s.kubeletVolumes.includes(kv.path),
  );
  lines.push({ text: '' }, { text: `Kubelet volumes (${vols.length})`, bold: true });
  if (vols.length === 0) lines.push({ text: '  no kubelet volume refers to this session', tone: 'dim' });
  for (const kv of vols) {
    lines.push({ text: `  ${kv.path}`, tone: kv.problems.length ? 'warn' : undefined });
    lines.push({
      text: `      ${kv.mode}, lun ${kv.lun}, ${kv.mounted ? 'mounted' : 'not mounted'}, metadata from ${kv.metadataSource}`,
      tone: 'dim',
    });
    for (const p of kv.problems) lines.push({ text: `      ⚠ ${p}`, tone: 'warn' });
    const pods = snap.kubelet.podVolumes.filter((pv) => pv.globalPath === kv.path);
    for (const pv of pods)
      lines.push({
        text: `      → pod ${pv.podUid} volume ${pv.volName}${pv.mounted ? '' : ' (not mounted)'}`,
      });
  }
  const other = s.pods.filter(
    (p) =>
      !snap.kubelet.podVolumes.some((pv) => pv.podUid === p && vols.some((kv) => kv.path === pv.globalPath)),
  );
  for (const p of other) lines.push({ text: `  → pod ${p}` });
  lines.push(...csiDetailLines(snap, s));
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
  const down = downScopeOf(snap, s);
  if (!down) return lines;
  lines.push({
    text: `  ${down.scope === 'portal' ? `${down.outage.summary} (the whole portal)` : down.summary}`,
    tone: 'bad',
    bold: true,
  });
  const clock = now === undefined ? recoveryClock({ ...s, downSeenAt: undefined }, 0) : recoveryClock(s, now);
  lines.push({ text: `  recovery: ${describeRecovery(clock)}`, tone: 'warn' });
  if (s.downSeenAt) lines.push({ text: `  first seen down ${s.downSeenAt}`, tone: 'dim' });
  return lines;
}
