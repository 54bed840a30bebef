/**
 * The session detail, as lines: everything `iscsiadm -m session -P 3`, `lsblk` and `multipath -ll`
 * would tell, joined along the chain LUN → sdX → dm → mounts → kubelet volume → pod, with the
 * console's verdict beside kubelet's own isSessionBusy answer and the reasons behind both.
 */
import type { Session, Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';
import { formatBytes } from '../format.js';
import { HEALTH_LOOK, stateTone, VERDICT_LOOK } from '../theme.js';
import { csiDetailLines } from './csi-detail.js';

export function sessionDetailLines(snap: Snapshot, s: Session): Line[] {
  const v = VERDICT_LOOK[s.verdict];
  const h = HEALTH_LOOK[s.health];
  const lines: Line[] = [
    { text: `Session ${s.sid}  ${s.targetIqn}`, bold: true },
    {
      text: `  portal ${s.portal},${s.tpgt}   iface ${s.iface}   host ${s.hostNumber ?? '-'} (${s.hostState ?? '?'})`,
    },
    {
      text: `  state ${s.state}   recovery_tmo ${s.recoveryTmo === -1 ? 'off' : `${s.recoveryTmo ?? '?'}s`}   local ${s.ipaddress ?? '-'}${s.netdev ? ` (${s.netdev})` : ''}`,
      tone: stateTone(s.state),
    },
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
      text: `  LUN ${d.lun}  ${d.hctl}  ${d.name ?? '(sg only)'}  ${d.state ?? '?'}  ${formatBytes(d.sizeBytes)}  ${d.vendor ?? ''} ${d.model ?? ''}`.trimEnd(),
      tone: stateTone(d.state),
    });
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
