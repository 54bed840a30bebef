/**
 * Is this mount point one of kubelet's own volume mounts, and whose? The one answer for the unmount
 * planner, its preconditions and anything else that must tell kubelet's mounts from the node's
 * (/proc, /var/lib/docker, a backup mount): only what the snapshot's kubelet and CSI readers found
 * counts (src/engine/snapshot/kubelet-volumes.ts, pod-volumes.ts, csi/read-csi.ts).
 *
 * kubelet mounts a volume twice (docs/kubelet-iscsi.md#call-sequence, docs/csi-drivers.md): once per
 * node (in-tree: MountDevice onto the global dir; CSI: NodeStageVolume onto the staging path) and
 * once per pod (in-tree: SetUp's bind mount into the pod's volume dir, or for a block volume a bind
 * of the device node at `<globalMapPath>/<podUID>`; CSI: NodePublishVolume onto the publish path).
 */
import { parseGlobalPath } from '../kubelet/paths.js';
import type { Snapshot } from '../model.js';
import { podMountsOf } from './lookup.js';

interface PodMountRef {
  podUid: string;
  path: string;
}

export interface KubeletMountPoint {
  path: string;
  /** `global`: the volume's mount for the node; `pod`: one pod's own mount of it. */
  kind: 'global' | 'pod';
  plugin: 'in-tree' | 'csi';
  /** The volume: the in-tree global dir, or the CSI volume's PV (else its handle or staging path). */
  volume: string;
  /** `pod`: the pod whose mount this is. */
  podUid?: string;
  /** `global`: the pods' own mounts still made from it (they keep its filesystem busy). */
  podMounts: PodMountRef[];
  /** The in-tree volume's target (its lock), when known. */
  iqn?: string;
}

/** The in-tree plugin's mounts at `p`: a filesystem global dir, a pod's volume dir, a block pod bind. */
function inTreeMount(s: Snapshot, p: string): KubeletMountPoint | undefined {
  const global = s.kubelet.volumes.find((v) => v.path === p && v.mode === 'filesystem');
  if (global) {
    const podMounts = podMountsOf(s, p).map((x) => ({ podUid: x.podUid, path: x.path }));
    return { path: p, kind: 'global', plugin: 'in-tree', volume: p, podMounts, iqn: global.iqn };
  }
  const pod = s.kubelet.podVolumes.find((v) => v.path === p && v.mode === 'filesystem');
  if (pod) {
    const iqn = s.kubelet.volumes.find((v) => v.path === pod.globalPath)?.iqn;
    const volume = pod.globalPath ?? pod.volName;
    return {
      path: p,
      kind: 'pod',
      plugin: 'in-tree',
      volume,
      podUid: pod.podUid,
      podMounts: [],
      ...(iqn ? { iqn } : {}),
    };
  }
  const block = parseGlobalPath(s.kubelet.root, p);
  const vol = block?.podUid ? s.kubelet.volumes.find((v) => v.path === block.globalPath) : undefined;
  if (block?.podUid && vol) {
    return {
      path: p,
      kind: 'pod',
      plugin: 'in-tree',
      volume: vol.path,
      podUid: block.podUid,
      podMounts: [],
      iqn: vol.iqn,
    };
  }
  return undefined;
}

/** A CSI volume's staging path or one of its publish paths. */
function csiMount(s: Snapshot, p: string): KubeletMountPoint | undefined {
  for (const v of s.csi?.volumes ?? []) {
    const volume = v.pv ?? v.volumeHandle ?? v.stagingPath ?? p;
    if (v.stagingPath === p) {
      const podMounts = v.publish.filter((x) => x.mounted).map((x) => ({ podUid: x.podUid, path: x.path }));
      return { path: p, kind: 'global', plugin: 'csi', volume, podMounts };
    }
    const pub = v.publish.find((x) => x.path === p);
    if (pub) return { path: p, kind: 'pod', plugin: 'csi', volume, podUid: pub.podUid, podMounts: [] };
  }
  return undefined;
}

/** kubelet's own volume mount at `path` (trailing slashes ignored), or undefined for any other path. */
export function kubeletMountAt(s: Snapshot, path: string): KubeletMountPoint | undefined {
  const p = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return inTreeMount(s, p) ?? csiMount(s, p);
}

/** The pods' own mounts still made from the global mount at `path` (none for any other path). */
export function podMountsOn(s: Snapshot, path: string): PodMountRef[] {
  const m = kubeletMountAt(s, path);
  return m?.kind === 'global' ? m.podMounts : [];
}
