import type { Host } from '../host/host.js';
import type { FsInfo } from '../model.js';
import { readAttr, toInt } from './attr.js';
import { readUdevFs } from './udev-db.js';

/** A device-mapper device from /sys/block/dm-N (multipath map, partition map, LVM volume ...). */
export interface DmDevice {
  name: string;
  /** dm/name (`mpatha`, a WWID, `vg-lv`). */
  dmName?: string;
  /** dm/uuid (`mpath-<wwid>` for multipath maps, `part1-mpath-...` for kpartx, `LVM-...`). */
  dmUuid?: string;
  majMin?: string;
  sizeBytes?: number;
  slaves: string[];
  holders: string[];
  /** dm/suspended reads 1 (multipath maps only: read for them alone). */
  suspended?: boolean;
  /** Filesystem on the device, from the udev database (multipath maps only). */
  fs?: FsInfo;
}

interface BlockClassRead {
  dm: DmDevice[];
  /** loop device → backing file (host path, ` (deleted)` suffix removed). */
  loops: Record<string, string>;
}

/**
 * One pass over /sys/block: dm-N devices (for multipath maps and holder chains) and loop devices
 * with a backing file (kubelet's block-volume "lock": volumepathhandler AttachFileDevice, docs/kubelet-iscsi.md#call-sequence).
 * sd devices are read from their sessions instead, so they are skipped here.
 */
export function readBlockClass(host: Host): BlockClassRead {
  const dm: DmDevice[] = [];
  const loops: Record<string, string> = {};
  for (const name of host.readDir('/sys/block')) {
    if (name.startsWith('dm-')) {
      const dir = `/sys/block/${name}`;
      const d: DmDevice = {
        name,
        slaves: host.readDir(`${dir}/slaves`),
        holders: host.readDir(`${dir}/holders`),
      };
      const n = readAttr(host, `${dir}/dm/name`);
      if (n !== undefined) d.dmName = n;
      const u = readAttr(host, `${dir}/dm/uuid`);
      if (u !== undefined) d.dmUuid = u;
      const mm = readAttr(host, `${dir}/dev`);
      if (mm !== undefined) d.majMin = mm;
      const sectors = toInt(readAttr(host, `${dir}/size`));
      if (sectors !== undefined) d.sizeBytes = sectors * 512;
      if (u?.startsWith('mpath-')) {
        // 0 or 1 (drivers/md/dm-sysfs.c, dm_attr_suspended_show).
        if (readAttr(host, `${dir}/dm/suspended`) === '1') d.suspended = true;
        const fs = readUdevFs(host, mm);
        if (fs) d.fs = fs;
      }
      dm.push(d);
    } else if (name.startsWith('loop')) {
      // An unbound loop device has no loop/ dir: the read simply fails.
      const bf = readAttr(host, `/sys/block/${name}/loop/backing_file`);
      if (bf !== undefined) loops[name] = bf.replace(/ \(deleted\)$/, '');
    }
  }
  // Sorted by minor number (dm-2 before dm-10); each key parsed once, not per comparison.
  const order = new Map(dm.map((d) => [d, toInt(d.name.slice(3)) ?? 0]));
  dm.sort((a, b) => order.get(a)! - order.get(b)!);
  return { dm, loops };
}
