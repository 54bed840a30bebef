/**
 * The Volumes view's detail (⏎/`d` on a row). An in-tree kubelet volume: its global dir, target,
 * portals and LUN as kubelet recorded them (iscsi.json or the dir name), its sessions and devices,
 * its pods by namespace/name and what the engine says is wrong. A CSI volume: its driver, PV and
 * handle, staging and publish dirs, sessions, pods and problems, and whether the console can clean
 * its leftover dirs up (the cleanup planner the CLI's `cleanup <csi-volume-path>` runs).
 */
import { csiVolumeMounted, csiVolumePath, driverLabel, nodeProblems, podLabel } from '../../app/domain.js';
import type { CsiVolume, KubeletVolume, Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';
import { problemLines } from './device-detail.js';

/** The Volumes view's row key of a CSI volume (its staging path, else its first publish path). */
export const csiRowKey = (v: CsiVolume) => `csi:${csiVolumePath(v)}`;

function podLine(snap: Snapshot, uid: string, what: string, mounted: boolean): Line {
  const name = podLabel(snap.kubelet.pods, uid);
  return {
    text: `  pod ${name}${name === uid ? '' : `   uid ${uid}`}${what}${mounted ? '' : ' (not mounted)'}`,
    tone: mounted ? 'ok' : 'dim',
  };
}

function sessionLines(snap: Snapshot, sids: readonly number[]): Line[] {
  const lines: Line[] = [{ text: `Sessions (${sids.length})`, bold: true }];
  if (sids.length === 0) lines.push({ text: '  no session of it is logged in', tone: 'warn' });
  for (const sid of sids) {
    const s = snap.sessions.find((x) => x.sid === sid);
    if (!s) continue;
    const devs = s.devices.map((d) => `${d.name ?? d.hctl} ${d.state ?? '?'}`).join(', ') || 'no devices';
    lines.push({ text: `  session ${sid}  ${s.portal}  ${s.state}  ${s.verdict}   ${devs}` });
  }
  return lines;
}

function inTreeLines(snap: Snapshot, v: KubeletVolume): Line[] {
  const portals = [...new Set([v.portal, ...(v.metadata?.Portals ?? [])].filter(Boolean))];
  const lines: Line[] = [
    { text: `Kubelet volume ${v.path.split('/').pop() ?? v.path}`, bold: true },
    { text: `  ${v.path}`, tone: 'dim' },
    { text: `  target ${v.iqn}  LUN ${v.lun}  iface ${v.iface}` },
    { text: `  portals ${portals.join(', ') || '-'}` },
    {
      text: `  ${v.mode}, ${v.mounted ? 'mounted' : 'not mounted'}, recorded in ${v.metadataSource === 'iscsi.json' ? 'iscsi.json' : v.metadataSource === 'path' ? 'the dir name only' : 'a dir the console cannot read'}`,
    },
    ...problemLines(nodeProblems(snap).volumes.get(v.path)),
  ];
  for (const n of v.notes ?? []) lines.push({ text: `  note: ${n}`, tone: 'dim' });
  const uses = snap.kubelet.podVolumes.filter((pv) => pv.globalPath === v.path);
  const uids = [...new Set([...v.pods, ...uses.map((u) => u.podUid), ...v.podDevices])];
  lines.push({ text: '' }, { text: `Pods (${uids.length})`, bold: true });
  if (uids.length === 0) lines.push({ text: '  no pod uses it', tone: 'dim' });
  for (const uid of uids) {
    const u = uses.find((x) => x.podUid === uid);
    lines.push(podLine(snap, uid, u ? `  volume ${u.volName}` : '', u?.mounted ?? true));
  }
  lines.push({ text: '' }, ...sessionLines(snap, v.sessions));
  return lines;
}

function csiLines(snap: Snapshot, v: CsiVolume): Line[] {
  const lines: Line[] = [
    { text: `CSI volume ${v.pv ?? v.volumeHandle ?? '(unnamed)'}`, bold: true },
    {
      text: `  driver ${v.driver}${driverLabel(v.driver) === v.driver ? '' : ` (${driverLabel(v.driver)})`}`,
    },
    ...(v.volumeHandle ? [{ text: `  handle ${v.volumeHandle}`, tone: 'dim' as const }] : []),
    { text: `  ${v.mode}, ${csiVolumeMounted(v) ? 'mounted' : 'not mounted'}` },
    ...problemLines(nodeProblems(snap).csiVolumes.get(csiVolumePath(v))),
    { text: '' },
    { text: 'Kubelet dirs', bold: true },
  ];
  if (v.stagingPath)
    lines.push({
      text: `  staging ${v.stagingPath}${v.stagingMounted ? ' (mounted)' : ' (not mounted)'}`,
      tone: v.stagingMounted ? 'ok' : 'dim',
    });
  for (const p of v.publish)
    lines.push({ text: `  publish ${p.path}${p.mounted ? ' (mounted)' : ' (not mounted)'}`, tone: 'dim' });
  const uids = [...new Set(v.publish.map((p) => p.podUid))];
  lines.push({ text: '' }, { text: `Pods (${uids.length})`, bold: true });
  if (uids.length === 0) lines.push({ text: '  no pod publishes it', tone: 'dim' });
  for (const uid of uids)
    lines.push(
      podLine(
        snap,
        uid,
        '',
        v.publish.some((p) => p.podUid === uid && p.mounted),
      ),
    );
  lines.push({ text: '' }, ...sessionLines(snap, v.sessions));
  return lines;
}

/** The detail of a Volumes row by its key: a global dir path, or `csi:<path>`. */
export function volumeDetailLines(snap: Snapshot, key: string): Line[] | undefined {
  if (key.startsWith('csi:')) {
    const v = snap.csi?.volumes.find((x) => csiRowKey(x) === key);
    return v ? csiLines(snap, v) : undefined;
  }
  const v = snap.kubelet.volumes.find((x) => x.path === key);
  return v ? inTreeLines(snap, v) : undefined;
}
