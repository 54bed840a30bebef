import type { Host } from '../host/host.js';
import { ISCSI_POD_PLUGIN } from '../kubelet/paths.js';
import type { KubeletVolume, Mount, PodVolume } from '../model.js';

function trimRoot(root: string): string {
  return root.length > 1 ? root.replace(/\/+$/, '') : root;
}

/**
 * Finds the global dir a pod's FS volume binds: kubelet bind-mounts the global dir onto the pod dir
 * (diskSetUp, §1.3), so both mounts share the filesystem (maj:min) and root. Falls back to the
 * VolName recorded in iscsi.json when the pod dir is not mounted.
 */
function globalForFs(
  podPath: string,
  volName: string,
  mountAt: ReadonlyMap<string, Mount>,
  globalByFs: ReadonlyMap<string, string>,
  fsVolumes: readonly KubeletVolume[],
): string | undefined {
  const m = mountAt.get(podPath);
  const g = m ? globalByFs.get(`${m.majMin}|${m.root}`) : undefined;
  if (g) return g;
  const byName = fsVolumes.filter((v) => v.metadata?.VolName === volName);
  return byName.length === 1 ? byName[0]!.path : undefined;
}

/**
 * Finds the block map path of a pod's block volume: kubelet keeps a per-pod device node named by
 * the pod UID inside the map path; when several volumes have one, iscsi.json's VolName decides.
 */
function globalForBlock(
  podUid: string,
  volName: string,
  blockVolumes: readonly KubeletVolume[],
): string | undefined {
  const withPod = blockVolumes.filter((v) => v.podDevices.includes(podUid));
  if (withPod.length === 1) return withPod[0]!.path;
  const pool = withPod.length > 0 ? withPod : blockVolumes;
  const byName = pool.filter((v) => v.metadata?.VolName === volName);
  return byName.length === 1 ? byName[0]!.path : undefined;
}

/**
 * Reads pod volume dirs `<root>/pods/<uid>/volumes/kubernetes.io~iscsi/<vol>` (filesystem, a bind
 * mount of the global dir) and `<root>/pods/<uid>/volumeDevices/kubernetes.io~iscsi/<vol>` (block,
 * a symlink to the device), and links each to its global dir. Also fills the volumes' `pods`.
 */
export function readPodVolumes(
  host: Host,
  kubeletRoot: string,
  mounts: readonly Mount[],
  volumes: readonly KubeletVolume[],
): PodVolume[] {
  const root = trimRoot(kubeletRoot);
  const mountAt = new Map<string, Mount>();
  for (const m of mounts) mountAt.set(m.mountPoint, m);
  const fsVolumes = volumes.filter((v) => v.mode === 'filesystem');
  const blockVolumes = volumes.filter((v) => v.mode === 'block');
  const byPath = new Map(volumes.map((v) => [v.path, v]));
  // Mounted global dirs by filesystem identity (maj:min + root), for matching pod bind mounts.
  const globalByFs = new Map<string, string>();
  for (const v of fsVolumes) {
    const gm = mountAt.get(v.path);
    if (gm) globalByFs.set(`${gm.majMin}|${gm.root}`, v.path);
  }
  const out: PodVolume[] = [];
  for (const podUid of host.readDir(`${root}/pods`)) {
    const fsDir = `${root}/pods/${podUid}/volumes/${ISCSI_POD_PLUGIN}`;
    for (const volName of host.readDir(fsDir)) {
      const path = `${fsDir}/${volName}`;
      const pv: PodVolume = { podUid, volName, path, mode: 'filesystem', mounted: mountAt.has(path) };
      const g = globalForFs(path, volName, mountAt, globalByFs, fsVolumes);
      if (g) pv.globalPath = g;
      out.push(pv);
    }
    const blockDir = `${root}/pods/${podUid}/volumeDevices/${ISCSI_POD_PLUGIN}`;
    for (const volName of host.readDir(blockDir)) {
      const path = `${blockDir}/${volName}`;
      // A block pod volume is a symlink to the device; "mounted" means the link is present.
      const pv: PodVolume = {
        podUid,
        volName,
        path,
        mode: 'block',
        mounted: host.readLink(path) !== undefined,
      };
      const g = globalForBlock(podUid, volName, blockVolumes);
      if (g) pv.globalPath = g;
      out.push(pv);
    }
  }
  for (const pv of out) {
    const v = pv.globalPath ? byPath.get(pv.globalPath) : undefined;
    if (v && !v.pods.includes(pv.podUid)) v.pods.push(pv.podUid);
  }
  return out;
}
