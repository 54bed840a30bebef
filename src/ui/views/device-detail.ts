/**
 * The Devices view's detail (⏎/`d` on a row): for an sd device, the pods that use it first (what an
 * admin opens it for), then its session, target, portal and LUN, its state and what the engine says
 * is wrong, and the chain above it (holders, mounts, kubelet and CSI volumes); for a multipath map,
 * its pods, its paths each with its session, `multipath -ll`'s topology and its mounts.
 */
import {
  type DeviceUsers,
  deviceUsers,
  fsWords,
  mapPaths,
  mapUsers,
  multipathLlLines,
  nodeProblems,
  type Problem,
  podLabel,
  sessionOfDevice,
} from '../../app/domain.js';
import type { MultipathMap, ScsiDevice, Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';
import { formatBytes } from '../format.js';
import { problemTone, stateTone } from '../theme.js';
import { deviceLines } from './session-detail.js';

/** The Devices view's row key of a map (a device's row key is its LunKey). */
export const mapRowKey = (m: MultipathMap) => `dm|${m.name}`;

function findDevice(snap: Snapshot, key: string): ScsiDevice | undefined {
  for (const s of snap.sessions) for (const d of s.devices) if (d.key === key) return d;
  return undefined;
}

/** Pods by namespace/name (the UID beside a known name), then the volumes that lead to them. */
function usersLines(snap: Snapshot, u: DeviceUsers): Line[] {
  const lines: Line[] = [{ text: `Pods (${u.pods.length})`, bold: true }];
  if (u.pods.length === 0) lines.push({ text: '  no pod uses it', tone: 'dim' });
  for (const uid of u.pods) {
    const name = podLabel(snap.kubelet.pods, uid);
    lines.push({ text: `  pod ${name}${name === uid ? '' : `   uid ${uid}`}`, tone: 'ok' });
  }
  for (const v of u.volumes) {
    lines.push({ text: `  kubelet volume ${v.path}`, tone: v.problems.length ? 'warn' : undefined });
    lines.push({
      text: `      ${v.mode}, lun ${v.lun}, ${v.mounted ? 'mounted' : 'not mounted'}`,
      tone: 'dim',
    });
  }
  for (const v of u.csiVolumes) {
    lines.push({ text: `  CSI volume ${v.pv ?? v.volumeHandle ?? '?'} (${v.driver}, ${v.mode})` });
    if (v.stagingPath) lines.push({ text: `      staging ${v.stagingPath}`, tone: 'dim' });
  }
  return lines;
}

/** What the engine's problems rule says of the object, one reason a line. */
export function problemLines(p: Problem | undefined): Line[] {
  if (!p || p.severity === 'ok') return [{ text: '✓ nothing wrong with it', tone: 'ok' }];
  const tone = problemTone(p.severity);
  return p.reasons.map((r) => ({ text: `${p.severity === 'failed' ? '✗' : '!'} ${r}`, tone }));
}

function sdLines(snap: Snapshot, d: ScsiDevice, now: number | undefined): Line[] | undefined {
  const s = sessionOfDevice(snap, d);
  if (!s) return undefined;
  const lines: Line[] = [
    {
      text: `Device ${d.name ?? '(sg only)'}  ${d.hctl}  ${d.state ?? '?'}  ${formatBytes(d.sizeBytes)}`,
      bold: true,
      tone: stateTone(d.state),
    },
    { text: `  session ${s.sid} (${s.state}, ${s.verdict})  LUN ${d.lun}  iface ${s.iface}` },
    { text: `  target ${s.targetIqn}` },
    { text: `  portal ${s.portal}  host ${s.hostNumber ?? '-'}` },
    ...problemLines(nodeProblems(snap).devices.get(d.key)),
    { text: '' },
    ...usersLines(snap, deviceUsers(snap, d, s)),
    { text: '' },
    { text: 'On the device (holders, mounts)', bold: true },
    ...deviceLines(snap, d, now),
  ];
  return lines;
}

function dmLines(snap: Snapshot, m: MultipathMap): Line[] {
  const ok = m.slaves.length - m.failedSlaves.length;
  const lines: Line[] = [
    {
      text: `Map ${m.name} ${m.alias}  ${formatBytes(m.sizeBytes)}  ${ok}/${m.slaves.length} paths ok${m.suspended ? '  SUSPENDED' : ''}`,
      bold: true,
      tone: m.failedSlaves.length > 0 || m.suspended ? 'warn' : 'ok',
    },
    { text: `  wwid ${m.wwid}`, tone: 'dim' },
    ...problemLines(nodeProblems(snap).maps.get(m.name)),
    { text: '' },
    ...usersLines(snap, mapUsers(snap, m)),
    { text: '' },
    { text: `Paths (${m.slaves.length})`, bold: true },
  ];
  const paths = mapPaths(snap, m);
  for (const name of m.slaves) {
    const p = paths.find((x) => x.device.name === name);
    const failed = m.failedSlaves.includes(name);
    lines.push({
      text: p
        ? `  ${name}  ${p.device.hctl}  ${p.device.state ?? '?'}  session ${p.session.sid} ${p.session.state} @ ${p.session.portal}`
        : `  ${name}  (not an iSCSI device of this node)`,
      tone: failed ? 'bad' : stateTone(p?.device.state),
    });
  }
  const ll = multipathLlLines(m);
  if (ll.length > 0) {
    lines.push({ text: '' }, { text: `Topology (${m.topology?.source ?? 'multipath -ll'})`, bold: true });
    for (const l of ll) lines.push({ text: `  ${l}`, tone: 'dim' });
  }
  const fs = fsWords(m.fs);
  lines.push({ text: '' }, { text: 'On the map', bold: true });
  if (fs) lines.push({ text: `  fs ${fs}`, tone: 'dim' });
  for (const h of m.holders) lines.push({ text: `  → ${h}` });
  for (const mp of m.mountpoints) lines.push({ text: `  → mounted at ${mp}`, tone: 'ok' });
  if (!fs && m.holders.length === 0 && m.mountpoints.length === 0)
    lines.push({ text: '  no filesystem, holder or mount', tone: 'dim' });
  return lines;
}

/** The detail of a Devices row by its key: a map (`dm|dm-0`) or a device (its LunKey). */
export function deviceDetailLines(snap: Snapshot, key: string, now: number | undefined): Line[] | undefined {
  if (key.startsWith('dm|')) {
    const m = snap.multipath.find((x) => mapRowKey(x) === key);
    return m ? dmLines(snap, m) : undefined;
  }
  const d = findDevice(snap, key);
  return d ? sdLines(snap, d, now) : undefined;
}
