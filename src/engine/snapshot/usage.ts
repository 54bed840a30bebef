import type { Host } from '../host/host.js';
import { parseGlobalPath } from '../kubelet/paths.js';
import type { BlockBind, Mount, MultipathMap, ScsiDevice } from '../model.js';
import { readAttr } from './attr.js';
import type { DmDevice } from './block-class.js';
import { none, trimmed } from './lists.js';
import type { DeviceExtras } from './scsi-devices.js';
import type { SysfsSession } from './sessions.js';

/**
 * One thing that holds an iSCSI disk busy, with the chain of kernel devices it goes through.
 * `block-bind` is a bind mount of the device *node* (kubelet's block volume at
 * `<globalMapPath>/<podUID>`): no filesystem of the device is mounted, so it is not a `mount`.
 */
export interface DeviceUse {
  kind: 'mount' | 'block-bind' | 'swap' | 'loop';
  /** Mount point, swap path, or loop device name. */
  where: string;
  /** Kernel device the use sits on (`sdb`, `sdb1`, `dm-0`), and the chain down to the disk. */
  via: string;
  /** For loops: the backing file. */
  backingFile?: string;
  /** The use is below the kubelet root (kubelet's own mount / block-volume loop). */
  kubelet: boolean;
  /** For a block-bind at `<globalMapPath>/<podUID>`: the pod UID. */
  podUid?: string;
}

interface UsageInput {
  host: Host;
  kubeletRoot: string;
  sessions: readonly SysfsSession[];
  extras: ReadonlyMap<string, DeviceExtras>;
  dm: readonly DmDevice[];
  mounts: readonly Mount[];
  swaps: readonly string[];
  loops: Readonly<Record<string, string>>;
  byPath: ReadonlyMap<string, string[]>;
  mapperNames: ReadonlySet<string>;
}

export interface UsageResult {
  /** sd name → uses found on it, its partitions or the dm devices above it. */
  uses: Map<string, DeviceUse[]>;
  multipath: MultipathMap[];
  /** Loops under the kubelet plugin dir whose device could not be found: portal/iqn from the path. */
  unresolvedKubeletLoops: { loop: string; backingFile: string; portal: string; iqn: string; lun: string }[];
}

/**
 * The kernel name behind a bind mount of a device node: devtmpfs with a root of `/<name>` (one
 * component; captures mountinfo of kubelet's block path). Undefined for anything else.
 */
function nodeBindOf(m: Mount): string | undefined {
  if (m.fsType !== 'devtmpfs' || m.root.length < 2 || m.root.includes('/', 1)) return undefined;
  return m.root.slice(1);
}

function isUnder(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}

/**
 * Links mounts (by maj:min, and devtmpfs bind mounts of a device node by their root `/sdX`),
 * swap areas and loop devices to the iSCSI disks beneath them, walking partitions and dm slaves
 * down to the sd devices. Fills each device's mountpoints/swap/loops/byPath and builds the
 * multipath maps from sysfs.
 */
export function linkUsage(input: UsageInput): UsageResult {
  const { host, kubeletRoot, sessions, extras, dm, mounts, swaps, loops, byPath, mapperNames } = input;
  const devices = new Map<string, ScsiDevice>();
  for (const s of sessions) for (const d of s.devices) if (d.name) devices.set(d.name, d);
  const partParent = new Map<string, string>();
  const byMajMin = new Map<string, string>();
  for (const [name, x] of extras) {
    for (const p of x.partitions) {
      partParent.set(p.name, name);
      if (p.majMin) byMajMin.set(p.majMin, p.name);
    }
  }
  for (const d of devices.values()) if (d.majMin) byMajMin.set(d.majMin, d.name!);
  const dmByName = new Map<string, DmDevice>();
  const dmByAlias = new Map<string, string>();
  for (const d of dm) {
    dmByName.set(d.name, d);
    if (d.majMin) byMajMin.set(d.majMin, d.name);
    if (d.dmName) dmByAlias.set(d.dmName, d.name);
  }

  /** Walks from a kernel name down to sd disks; returns them and the dm devices passed. */
  const down = (name: string): { disks: Map<string, string>; dms: string[] } => {
    const disks = new Map<string, string>();
    const dms: string[] = [];
    const seen = new Set<string>();
    const walk = (n: string, chain: string) => {
      if (seen.has(n)) return;
      seen.add(n);
      if (devices.has(n)) disks.set(n, chain);
      else if (partParent.has(n)) walk(partParent.get(n)!, `${chain} → ${partParent.get(n)}`);
      else {
        const d = dmByName.get(n);
        if (!d) return;
        dms.push(n);
        for (const sl of d.slaves) walk(sl, `${chain} → ${sl}`);
      }
    };
    const d0 = dmByName.get(name);
    walk(name, d0?.dmName ? `${name} (${d0.dmName})` : name);
    return { disks, dms };
  };

  const uses = new Map<string, DeviceUse[]>();
  const dmMounts = new Map<string, string[]>();
  const addToDisk = (disk: string, use: DeviceUse) => {
    const list = uses.get(disk);
    if (list) list.push(use);
    else uses.set(disk, [use]);
  };
  const addUse = (kernelName: string, use: Omit<DeviceUse, 'via'>) => {
    // The common cases first, without a walk: a use right on a disk, or on one of its partitions.
    if (!dmByName.has(kernelName)) {
      if (devices.has(kernelName)) {
        addToDisk(kernelName, { ...use, via: kernelName });
        return true;
      }
      const parent = partParent.get(kernelName);
      if (parent !== undefined && devices.has(parent) && parent !== kernelName) {
        addToDisk(parent, { ...use, via: `${kernelName} → ${parent}` });
        return true;
      }
    }
    const { disks, dms } = down(kernelName);
    for (const [disk, via] of disks) addToDisk(disk, { ...use, via });
    if (use.kind === 'mount') {
      for (const n of dms) {
        const l = dmMounts.get(n);
        if (!l) dmMounts.set(n, [use.where]);
        else if (!l.includes(use.where)) l.push(use.where);
      }
    }
    return disks.size > 0;
  };

  for (const m of mounts) {
    const name = byMajMin.get(m.majMin);
    const kubelet = isUnder(m.mountPoint, kubeletRoot);
    if (name) {
      addUse(name, { kind: 'mount', where: m.mountPoint, kubelet });
      continue;
    }
    // A device node bind-mounted (kubelet's block volume, volumepathhandler mapBindMountDevice)
    // shows devtmpfs's MAJ:MIN and the node's path inside devtmpfs as its root: `/sdX`.
    const node = nodeBindOf(m);
    if (node === undefined) continue;
    const use: Omit<DeviceUse, 'via'> = { kind: 'block-bind', where: m.mountPoint, kubelet };
    const podUid = kubelet ? parseGlobalPath(kubeletRoot, m.mountPoint)?.podUid : undefined;
    if (podUid !== undefined) use.podUid = podUid;
    addUse(node, use);
  }
  for (const sw of swaps) {
    const name = swapDevice(sw, dmByAlias);
    if (name) addUse(name, { kind: 'swap', where: sw, kubelet: false });
  }
  const unresolvedKubeletLoops: UsageResult['unresolvedKubeletLoops'] = [];
  const loopEntries = Object.entries(loops);
  const mountAt = new Map<string, Mount>();
  if (loopEntries.length > 0) for (const m of mounts) mountAt.set(m.mountPoint, m);
  for (const [loop, bf] of loopEntries) {
    const m = mountAt.get(bf);
    let name = m ? byMajMin.get(m.majMin) : undefined;
    if (!name && m) name = nodeBindOf(m);
    // `losetup /dev/sdX` directly: the backing file is the device node itself.
    if (!name && !m && bf.startsWith('/dev/') && !bf.includes('/', 5)) name = bf.slice(5);
    const underKubelet = isUnder(bf, kubeletRoot);
    const found = name
      ? addUse(name, { kind: 'loop', where: loop, backingFile: bf, kubelet: underKubelet })
      : false;
    if (!found) {
      const g = parseGlobalPath(kubeletRoot, bf);
      if (g) unresolvedKubeletLoops.push({ loop, backingFile: bf, portal: g.portal, iqn: g.iqn, lun: g.lun });
    }
  }

  fillDeviceUsage(devices, uses, byPath);
  const multipath = multipathMaps(host, dm, devices, dmByName, dmMounts, mapperNames);
  return { uses, multipath, unresolvedKubeletLoops };
}

/** Sets each device's mountpoints, block binds, swap, loops and by-path links from its uses. */
function fillDeviceUsage(
  devices: ReadonlyMap<string, ScsiDevice>,
  uses: ReadonlyMap<string, DeviceUse[]>,
  byPath: UsageInput['byPath'],
): void {
  for (const d of devices.values()) {
    const mountpoints: string[] = [];
    const loopNames: string[] = [];
    const binds: BlockBind[] = [];
    let swap = false;
    const u = uses.get(d.name!);
    if (u) {
      for (const x of u) {
        if (x.kind === 'mount') {
          if (!mountpoints.includes(x.where)) mountpoints.push(x.where);
        } else if (x.kind === 'block-bind') {
          if (binds.some((b) => b.path === x.where)) continue;
          const b: BlockBind = { path: x.where, via: x.via, kubelet: x.kubelet };
          if (x.podUid !== undefined) b.podUid = x.podUid;
          binds.push(b);
        } else if (x.kind === 'loop') {
          if (!loopNames.includes(x.where)) loopNames.push(x.where);
        } else swap = true;
      }
    }
    d.mountpoints = trimmed(mountpoints);
    if (binds.length > 0) d.blockBinds = binds;
    else delete d.blockBinds;
    d.swap = swap;
    d.loops = trimmed(loopNames);
    d.byPath = byPath.get(d.name!) ?? none();
  }
}

/** The multipath maps among the dm devices, with their failed paths and the mounts above them. */
function multipathMaps(
  host: Host,
  dm: readonly DmDevice[],
  devices: ReadonlyMap<string, ScsiDevice>,
  dmByName: ReadonlyMap<string, DmDevice>,
  dmMounts: ReadonlyMap<string, string[]>,
  mapperNames: UsageInput['mapperNames'],
): MultipathMap[] {
  const multipath: MultipathMap[] = [];
  for (const d of dm) {
    if (!d.dmUuid?.startsWith('mpath-')) continue;
    const failedSlaves = d.slaves.filter((sl) => {
      const state = devices.get(sl)?.state ?? readAttr(host, `/sys/block/${sl}/device/state`);
      return state !== 'running';
    });
    // Mounts of the map and of the dm devices above it (kpartx partitions, LVM).
    const mps = new Set<string>();
    const up = (n: string, seen: Set<string>) => {
      if (seen.has(n)) return;
      seen.add(n);
      for (const x of dmMounts.get(n) ?? []) mps.add(x);
      for (const h of dmByName.get(n)?.holders ?? []) up(h, seen);
    };
    up(d.name, new Set());
    const alias = d.dmName ?? d.name;
    const mp: MultipathMap = {
      name: d.name,
      alias,
      wwid: d.dmUuid.slice('mpath-'.length),
      uuid: d.dmUuid,
      slaves: d.slaves,
      holders: d.holders,
      mountpoints: [...mps],
      failedSlaves,
      mapperLink: mapperNames.has(alias),
    };
    if (d.majMin) mp.majMin = d.majMin;
    if (d.sizeBytes !== undefined) mp.sizeBytes = d.sizeBytes;
    if (d.suspended) mp.suspended = true;
    if (d.fs) mp.fs = d.fs;
    multipath.push(mp);
  }
  return multipath;
}

/** The kernel name of a swap area's device (`/dev/sdX`, `/dev/mapper/<alias>`), if it is one. */
function swapDevice(sw: string, dmByAlias: ReadonlyMap<string, string>): string | undefined {
  if (sw.startsWith('/dev/mapper/')) return dmByAlias.get(sw.slice(12));
  return sw.startsWith('/dev/') ? sw.slice(5) : undefined;
}
