import type { Host } from '../host/host.js';
import { ISCSI_POD_PLUGIN, normalizeKubeletRoot } from '../kubelet/paths.js';
import type { KubeletVolume, Mount, PodVolume } from '../model.js';
import { withItem } from './lists.js';

/** Items grouped by a key, in input order (built once per snapshot, not filtered per pod). */
function groupBy<T>(
  items: readonly T[],
  keysOf: (item: T) => readonly (string | undefined)[],
): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    for (const k of keysOf(item)) {
      if (k === undefined) continue;
      const l = out.get(k);
      if (!l) out.set(k, [item]);
      else if (l[l.length - 1] !== item) l.push(item);
    }
  }
  return out;
}

/** The one path among `vols`, or undefined when there is none or several. */
function onlyPath(vols: readonly KubeletVolume[] | undefined): string | undefined {
  return vols?.length === 1 ? vols[0]!.path : undefined;
}

/** Indexes over the global dirs, for matching pod volume dirs to them (see readPodVolumes). */
class GlobalIndex {
  private fsByName?: Map<string, KubeletVolume[]>;
  private blockByName?: Map<string, KubeletVolume[]>;
  private blockByPod?: Map<string, KubeletVolume[]>;
  /** Mounted global dirs by filesystem identity (maj:min, then root), for matching pod bind mounts. */
  private readonly byFs = new Map<string, Map<string, string>>();

  constructor(
    private readonly fsVolumes: readonly KubeletVolume[],
    private readonly blockVolumes: readonly KubeletVolume[],
    mountAt: ReadonlyMap<string, Mount>,
  ) {
    for (const v of fsVolumes) {
      const gm = mountAt.get(v.path);
      if (!gm) continue;
      let m = this.byFs.get(gm.majMin);
      if (!m) {
        m = new Map();
        this.byFs.set(gm.majMin, m);
      }
      m.set(gm.root, v.path);
    }
  }

  /**
   * The global dir a pod's FS volume binds: kubelet bind-mounts the global dir onto the pod dir
   * (diskSetUp, docs/kubelet-iscsi.md#call-sequence), so both mounts share the filesystem (maj:min) and root. Falls back to the
   * VolName recorded in iscsi.json when the pod dir is not mounted.
   */
  forFs(podMount: Mount | undefined, volName: string): string | undefined {
    const g = podMount ? this.byFs.get(podMount.majMin)?.get(podMount.root) : undefined;
    if (g) return g;
    this.fsByName ??= groupBy(this.fsVolumes, (v) => [v.metadata?.VolName]);
    return onlyPath(this.fsByName.get(volName));
  }

  /**
   * The block map path of a pod's block volume: kubelet keeps a per-pod device node named by the
   * pod UID inside the map path; when several volumes have one, iscsi.json's VolName decides.
   */
  forBlock(podUid: string, volName: string): string | undefined {
    this.blockByPod ??= groupBy(this.blockVolumes, (v) => v.podDevices);
    const withPod = this.blockByPod.get(podUid) ?? [];
    if (withPod.length === 1) return withPod[0]!.path;
    if (withPod.length > 0) return onlyPath(withPod.filter((v) => v.metadata?.VolName === volName));
    this.blockByName ??= groupBy(this.blockVolumes, (v) => [v.metadata?.VolName]);
    return onlyPath(this.blockByName.get(volName));
  }
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
  const root = normalizeKubeletRoot(kubeletRoot);
  const mountAt = new Map<string, Mount>();
  for (const m of mounts) mountAt.set(m.mountPoint, m);
  const fsVolumes: KubeletVolume[] = [];
  const blockVolumes: KubeletVolume[] = [];
  const byPath = new Map<string, KubeletVolume>();
  for (const v of volumes) {
    if (v.mode === 'filesystem') fsVolumes.push(v);
    else if (v.mode === 'block') blockVolumes.push(v);
    byPath.set(v.path, v);
  }
  const index = new GlobalIndex(fsVolumes, blockVolumes, mountAt);
  const out: PodVolume[] = [];
  const podsDir = `${root}/pods`;
  for (const podUid of host.readDir(podsDir)) {
    const fsDir = `${podsDir}/${podUid}/volumes/${ISCSI_POD_PLUGIN}`;
    for (const volName of host.readDir(fsDir)) {
      const path = `${fsDir}/${volName}`;
      const m = mountAt.get(path);
      const pv: PodVolume = { podUid, volName, path, mode: 'filesystem', mounted: m !== undefined };
      const g = index.forFs(m, volName);
      if (g) pv.globalPath = g;
      out.push(pv);
    }
    const blockDir = `${podsDir}/${podUid}/volumeDevices/${ISCSI_POD_PLUGIN}`;
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
      const g = index.forBlock(podUid, volName);
      if (g) pv.globalPath = g;
      out.push(pv);
    }
  }
  for (const pv of out) {
    const v = pv.globalPath ? byPath.get(pv.globalPath) : undefined;
    if (v) v.pods = withItem(v.pods, pv.podUid);
  }
  return out;
}
