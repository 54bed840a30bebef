import type { Host } from '../host/host.js';
import { targetLunOf } from '../iscsi/lun.js';
import type { LunKey, ScsiDevice } from '../model.js';
import { type AttrTable, cleanAttr, readAttr, readAttrs, readIntAttr, toInt, VANISHED } from './attr.js';
import { interned, readSharedAttr } from './interned.js';
import { kept, none } from './lists.js';
import { readUdevFs } from './udev-db.js';

/** A partition of a SCSI disk (`sdb1`), with what sits on it. */
interface PartitionInfo {
  name: string;
  majMin?: string;
  holders: string[];
}

/** What the device reader learns beyond the model's ScsiDevice (used for mount matching). */
export interface DeviceExtras {
  partitions: PartitionInfo[];
}

const HCTL = /^(\d+):(\d+):(\d+):(\d+)$/;

/** A LUN's INQUIRY identity and wwid, from its scsi_device dir. */
const LUN_ATTRS: AttrTable<ScsiDevice> = {
  vendor: readSharedAttr,
  model: readSharedAttr,
  rev: readSharedAttr,
  type: readIntAttr,
  wwid: readAttr,
};

/** Where one read puts what it found besides the devices: problems, and the extras kept per disk. */
export interface DeviceReadSink {
  problems: string[];
  extras: Map<string, DeviceExtras>;
  /** Partitions by disk, from one listing of /sys/class/block (else each disk's dir is listed). */
  partitionIndex?: ReadonlyMap<string, string[]>;
}

/**
 * Reads one SCSI device at `<session dir>/target<H:C:T>/<H:C:T:L>` following the layout the kernel
 * builds (drivers/scsi/scsi_sysfs.c; captures mp-find-host0.txt): attributes in the LUN dir, the
 * disk under `block/<sdX>` (absent for tgt's LUN 0 controller, which only has an sg node),
 * partitions as `block/<sdX>/<sdX><n>` dirs. Returns undefined when the device vanished mid-read.
 */
export function readScsiDevice(
  host: Host,
  lunDir: string,
  hctl: string,
  key: LunKey,
  into: DeviceReadSink,
): ScsiDevice | undefined {
  const { problems, extras, partitionIndex } = into;
  const m = HCTL.exec(hctl);
  if (!m) return undefined;
  const kernelLun = Number(m[4]);
  const lun = targetLunOf(kernelLun) ?? kernelLun;
  const st = host.readTextOrError(`${lunDir}/state`);
  if ('error' in st && VANISHED.has(st.error)) return undefined;
  const dev: ScsiDevice = {
    hctl,
    host: Number(m[1]),
    channel: Number(m[2]),
    target: Number(m[3]),
    lun,
    holders: none(),
    partitions: none(),
    mountpoints: none(),
    swap: false,
    loops: none(),
    byPath: none(),
    key,
  };
  if (lun !== kernelLun) dev.kernelLun = kernelLun;
  if ('error' in st) problems.push(`${lunDir}/state: unreadable (${st.error})`);
  else {
    const s = interned(cleanAttr(st.value));
    if (s !== undefined) dev.state = s;
  }
  readAttrs(host, lunDir, LUN_ATTRS, dev);
  const name = host.readDir(`${lunDir}/block`)[0];
  if (name !== undefined) {
    dev.name = name;
    const bd = `${lunDir}/block/${name}`;
    const majMin = readAttr(host, `${bd}/dev`);
    if (majMin !== undefined) dev.majMin = majMin;
    const fs = readUdevFs(host, majMin);
    if (fs) dev.fs = fs;
    // `size` is in 512-byte sectors whatever the logical block size (block/genhd.c part_size_show).
    const sectors = toInt(readAttr(host, `${bd}/size`));
    if (sectors !== undefined) dev.sizeBytes = sectors * 512;
    dev.holders = kept(host.readDir(`${bd}/holders`));
    const parts: PartitionInfo[] = [];
    const candidates = partitionIndex ? (partitionIndex.get(name) ?? []) : host.readDir(bd);
    for (const entry of candidates) {
      if (entry.length <= name.length || !entry.startsWith(name)) continue;
      const pdir = `${bd}/${entry}`;
      const p: PartitionInfo = { name: entry, holders: host.readDir(`${pdir}/holders`) };
      const pm = readAttr(host, `${pdir}/dev`);
      if (pm !== undefined) p.majMin = pm;
      const pfs = readUdevFs(host, pm);
      if (pfs) {
        dev.partitionFs ??= {};
        dev.partitionFs[entry] = pfs;
      }
      parts.push(p);
    }
    dev.partitions = kept(parts.map((p) => p.name));
    // Only disks with partitions: the extras are kept with the read basis until the next read.
    if (parts.length > 0) extras.set(name, { partitions: parts });
  }
  return dev;
}

/**
 * Partitions of every disk from one listing of /sys/class/block (which, unlike /sys/block, lists
 * partitions too: `sdb1`). Undefined when the class dir is absent (captures and older fixtures only
 * have /sys/block), so callers fall back to listing each disk's dir.
 */
export function readPartitionIndex(host: Host): Map<string, string[]> | undefined {
  const names = host.readDir('/sys/class/block');
  if (names.length === 0) return undefined;
  const out = new Map<string, string[]>();
  for (const n of names) {
    // sd names never end in a digit, so the partition number follows the disk name directly.
    const disk = partitionDisk(n);
    if (disk === undefined) continue;
    const l = out.get(disk);
    if (l) l.push(n);
    else out.set(disk, [n]);
  }
  return out;
}

/** `sdb12` → `sdb` (what /^(sd[a-z]+)\d+$/ captures), else undefined: by hand, for 5,000 names a read. */
function partitionDisk(n: string): string | undefined {
  if (n.charCodeAt(0) !== 115 || n.charCodeAt(1) !== 100) return undefined; // "sd"
  let i = 2;
  while (i < n.length && n.charCodeAt(i) >= 97 && n.charCodeAt(i) <= 122) i++;
  if (i === 2 || i === n.length) return undefined;
  for (let j = i; j < n.length; j++) {
    const c = n.charCodeAt(j);
    if (c < 48 || c > 57) return undefined;
  }
  return n.slice(0, i);
}
