/**
 * `iscsi_volume_info`: which kubelet volume (PV) sits on which device, for which pod, so
 * kube-state-metrics' `kube_persistentvolume_info{persistentvolume}` joins onto it. From the
 * snapshot's links only: an in-tree global dir's sessions and LUN, a CSI volume's sessions and the
 * device claims the engine made (csi/device-claims.ts), pod names from pod-names.ts.
 */
import { ISCSI_PLUGIN } from '../kubelet/paths.js';
import type { CsiVolume, KubeletVolume, PodName, ScsiDevice, Session, Snapshot } from '../model.js';
import { csiVolumePods } from '../snapshot/csi/describe.js';
import type { FamilySet } from './family-set.js';

/** kubelet's CSI volume plugin name (kubernetes pkg/volume/csi). */
const CSI_PLUGIN = 'kubernetes.io/csi';

function podLabels(pods: Readonly<Record<string, PodName>> | undefined, uid: string | undefined) {
  if (uid === undefined) return { pod_namespace: '', pod_name: '' };
  const p = pods?.[uid];
  // Without a recorded name the UID is all the node says: better than no pod at all.
  return { pod_namespace: p?.namespace ?? '', pod_name: p?.name ?? uid };
}

interface VolumeRow {
  plugin: string;
  driver: string;
  pv: string;
  devices: readonly ScsiDevice[];
  pods: readonly string[];
}

function addRow(
  set: FamilySet,
  snap: Snapshot,
  row: VolumeRow,
  pvOfPod?: (uid: string) => string | undefined,
) {
  const pods: (string | undefined)[] = row.pods.length > 0 ? [...row.pods] : [undefined];
  for (const d of row.devices) {
    if (!d.name) continue;
    for (const uid of pods) {
      const pv = (uid !== undefined ? pvOfPod?.(uid) : undefined) ?? row.pv;
      set.add(
        'iscsi_volume_info',
        {
          plugin: row.plugin,
          driver: row.driver,
          persistentvolume: pv,
          device: d.name,
          ...podLabels(snap.kubelet.pods, uid),
        },
        1,
      );
    }
  }
}

function sessionsOf(sids: readonly number[], bySid: ReadonlyMap<number, Session>): Session[] {
  return sids.map((sid) => bySid.get(sid)).filter((s): s is Session => s !== undefined);
}

/**
 * An in-tree volume: the LUN its global dir names, on every session (path) it refers to. Its PV
 * name is the pod's volume dir name (`pods/<uid>/volumes/kubernetes.io~iscsi/<name>`: the PV's name
 * for a PVC-bound volume, docs/kubelet-iscsi.md).
 */
function inTreeRow(v: KubeletVolume, bySid: ReadonlyMap<number, Session>): VolumeRow {
  const lun = Number(v.lun);
  return {
    plugin: ISCSI_PLUGIN,
    driver: ISCSI_PLUGIN,
    pv: '',
    devices: sessionsOf(v.sessions, bySid).flatMap((s) => s.devices.filter((d) => d.lun === lun)),
    pods: v.pods,
  };
}

/** A CSI volume: the devices of its sessions the engine found it claims. */
function csiRow(v: CsiVolume, bySid: ReadonlyMap<number, Session>): VolumeRow {
  const mine = (d: ScsiDevice) =>
    (d.claims ?? []).some(
      (c) =>
        c.owner === 'csi' &&
        c.driver === v.driver &&
        (c.pv !== undefined ? c.pv === v.pv : c.volumeHandle === v.volumeHandle),
    );
  return {
    plugin: CSI_PLUGIN,
    driver: v.driver,
    pv: v.pv ?? '',
    devices: sessionsOf(v.sessions, bySid).flatMap((s) => s.devices.filter(mine)),
    pods: csiVolumePods(v),
  };
}

/** Volumes on the exported sessions only (`bySid`): a capped session's volumes are dropped with it. */
export function addVolumes(set: FamilySet, snap: Snapshot, bySid: ReadonlyMap<number, Session>): void {
  for (const v of snap.kubelet.volumes) {
    const names = new Map<string, string>();
    for (const p of snap.kubelet.podVolumes) if (p.globalPath === v.path) names.set(p.podUid, p.volName);
    addRow(set, snap, inTreeRow(v, bySid), (uid) => names.get(uid));
  }
  for (const v of snap.csi?.volumes ?? []) addRow(set, snap, csiRow(v, bySid));
}
