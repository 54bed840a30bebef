/**
 * Who uses one SCSI device (or a multipath map): the kubelet volumes and CSI volumes on its LUN and
 * the pods behind them, by UID. One home for "the pod behind sdc": the console's Devices view (its
 * POD column and the device detail) and anything else that names a device's users ask here.
 *
 * The chain is the one kubelet builds (docs/kubelet-iscsi.md): an in-tree volume names its target,
 * portal and LUN in its global dir; a pod's volume refers to that global dir; a block volume's pod
 * link is a bind mount of the device node. A CSI volume is tied to the device by the driver's claim
 * on it (PV or volume handle, src/engine/snapshot/csi/device-claims.ts).
 */
import type { CsiVolume, KubeletVolume, MultipathMap, ScsiDevice, Session, Snapshot } from '../model.js';
import { csiVolumePods } from './csi/describe.js';

export interface DeviceUsers {
  volumes: KubeletVolume[];
  csiVolumes: CsiVolume[];
  /** Pod UIDs, once each, in the order found (kubelet volumes, block links, CSI volumes). */
  pods: string[];
}

/** The session a device belongs to (a device object sits on exactly one session). */
export function sessionOfDevice(snap: Pick<Snapshot, 'sessions'>, d: ScsiDevice): Session | undefined {
  return snap.sessions.find((s) => s.devices.includes(d) || s.devices.some((x) => x.key === d.key));
}

function csiOfDevice(snap: Snapshot, s: Session, d: ScsiDevice): CsiVolume[] {
  const vols = (snap.csi?.volumes ?? []).filter((v) => v.sessions.includes(s.sid));
  const claims = (d.claims ?? []).filter((c) => c.owner !== 'in-tree');
  if (claims.length === 0) {
    // No claim names the LUN: the CSI volume is this device's only when the session has no other disk.
    const disks = s.devices.filter((x) => x.name);
    return disks.length === 1 && disks[0]?.key === d.key ? vols : [];
  }
  return vols.filter((v) =>
    claims.some(
      (c) =>
        (c.pv !== undefined && c.pv === v.pv) ||
        (c.volumeHandle !== undefined && c.volumeHandle === v.volumeHandle),
    ),
  );
}

/** The kubelet and CSI volumes on a device's LUN and the pods that use them. */
export function deviceUsers(snap: Snapshot, d: ScsiDevice, session = sessionOfDevice(snap, d)): DeviceUsers {
  const pods: string[] = [];
  const add = (uid: string | undefined) => {
    if (uid && !pods.includes(uid)) pods.push(uid);
  };
  if (!session) return { volumes: [], csiVolumes: [], pods };
  const volumes = snap.kubelet.volumes.filter(
    (v) =>
      v.iqn === session.targetIqn &&
      Number(v.lun) === d.lun &&
      (v.sessions.includes(session.sid) || session.kubeletVolumes.includes(v.path)),
  );
  for (const v of volumes) {
    for (const uid of v.pods) add(uid);
    for (const pv of snap.kubelet.podVolumes) if (pv.globalPath === v.path) add(pv.podUid);
  }
  for (const b of d.blockBinds ?? []) add(b.podUid);
  const csiVolumes = csiOfDevice(snap, session, d);
  for (const v of csiVolumes) for (const uid of csiVolumePods(v)) add(uid);
  return { volumes, csiVolumes, pods };
}

/** The devices under a multipath map (its paths), each with its session. */
export function mapPaths(snap: Snapshot, m: MultipathMap): { device: ScsiDevice; session: Session }[] {
  const out: { device: ScsiDevice; session: Session }[] = [];
  for (const s of snap.sessions)
    for (const d of s.devices) if (d.name && m.slaves.includes(d.name)) out.push({ device: d, session: s });
  return out;
}

/** The users of a map: the union of its paths' users (every path is the same LUN). */
export function mapUsers(snap: Snapshot, m: MultipathMap): DeviceUsers {
  const out: DeviceUsers = { volumes: [], csiVolumes: [], pods: [] };
  for (const { device, session } of mapPaths(snap, m)) {
    const u = deviceUsers(snap, device, session);
    for (const v of u.volumes) if (!out.volumes.includes(v)) out.volumes.push(v);
    for (const v of u.csiVolumes) if (!out.csiVolumes.includes(v)) out.csiVolumes.push(v);
    for (const p of u.pods) if (!out.pods.includes(p)) out.pods.push(p);
  }
  return out;
}
