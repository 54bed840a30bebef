/**
 * What the host configuration checks ask of the node, from the one snapshot: which multipath maps
 * run over iSCSI paths, which over other disks, and which drivers are on the node (a rule whose only
 * source is one driver's requirement applies only where that driver is).
 */
import type { MultipathMap, Session, Snapshot } from '../model.js';
import { driverFromTargetName, longhornVolume } from '../snapshot/csi/paths.js';

/** sdX → the session it belongs to. */
export function iscsiDeviceIndex(snap: Snapshot): Map<string, Session> {
  const out = new Map<string, Session>();
  for (const s of snap.sessions) for (const d of s.devices) if (d.name) out.set(d.name, s);
  return out;
}

/** Maps with at least one path on an iSCSI session: where replacement_timeout meets no_path_retry. */
export function iscsiMaps(snap: Snapshot): MultipathMap[] {
  const idx = iscsiDeviceIndex(snap);
  return snap.multipath.filter((m) => m.slaves.some((d) => idx.has(d)));
}

/**
 * A CSI driver is on this node: registered with kubelet, its node plugin running, a volume of its
 * own in kubelet's dirs, a driver file (docs/csi-drivers.md), or a session to a target that names
 * it (Longhorn's prefix is Longhorn's own; ONTAP's is Trident's in practice).
 */
export function driverOnNode(snap: Snapshot, driver: string): string | undefined {
  const d = snap.csi?.drivers.find((x) => x.name === driver);
  if (d?.registered) return 'registered with kubelet';
  if (d?.running) return 'node plugin running';
  if (snap.csi?.volumes.some((v) => v.driver === driver)) return 'CSI volumes on this node';
  if (snap.csi?.driverFiles.some((f) => f.driver === driver)) return 'driver files on this node';
  const s = snap.sessions.find(
    (x) => x.claims?.some((c) => c.driver === driver) || driverFromTargetName(x.targetIqn) === driver,
  );
  if (s) return `session ${s.sid} to ${s.targetIqn}`;
  return undefined;
}

/** Longhorn's own iSCSI sessions (its target name prefix, docs/csi-drivers.md). */
export function longhornSessions(snap: Snapshot): Session[] {
  return snap.sessions.filter((s) => longhornVolume(s.targetIqn) !== undefined);
}
