import type { Tree } from '../tree.js';
import type { Portal } from '../types.js';
import { byPathName } from './names.js';

/**
 * What udev (systemd 252) creates in /dev for the simulated devices. Device nodes are plain
 * empty files (a simulation cannot mknod); symlinks are relative exactly as udev makes them
 * (single-dev-disk.txt, mp-dev-links.txt).
 */
export class Udev {
  constructor(private readonly tree: Tree) {}

  base(): void {
    this.tree.dir('/run/udev/data');
    this.tree.dir('/dev/disk/by-path');
    this.tree.dir('/dev/disk/by-id');
    this.tree.dir('/dev/mapper');
    this.tree.file('/dev/mapper/control', '');
  }

  disk(name: string, portal: Portal, iqn: string, lun: number, partitions: number): void {
    this.tree.file(`/dev/${name}`, '', 0o660);
    const link = `/dev/disk/by-path/${byPathName(portal, iqn, lun)}`;
    this.tree.link(link, `../../${name}`);
    for (let p = 1; p <= partitions; p++) {
      this.tree.file(`/dev/${name}${p}`, '', 0o660);
      this.tree.link(`${link}-part${p}`, `../../${name}${p}`);
    }
  }

  removeDisk(name: string, portal: Portal, iqn: string, lun: number, partitions: number): void {
    const link = `/dev/disk/by-path/${byPathName(portal, iqn, lun)}`;
    // udev removes a by-path link only if it still points at this disk (a newer path may own it).
    if (this.tree.realpath(link) === `/dev/${name}` || !this.tree.exists(link)) this.tree.remove(link);
    this.tree.remove(`/dev/${name}`);
    for (let p = 1; p <= partitions; p++) {
      this.tree.remove(`${link}-part${p}`);
      this.tree.remove(`/dev/${name}${p}`);
    }
  }

  dm(minor: number, name: string, wwid: string): void {
    this.tree.file(`/dev/dm-${minor}`, '', 0o660);
    this.tree.link(`/dev/mapper/${name}`, `../dm-${minor}`);
    this.tree.link(`/dev/disk/by-id/dm-name-${name}`, `../../dm-${minor}`);
    this.tree.link(`/dev/disk/by-id/dm-uuid-mpath-${wwid}`, `../../dm-${minor}`);
  }

  removeDm(minor: number, name: string, wwid: string): void {
    this.tree.remove(`/dev/mapper/${name}`);
    this.tree.remove(`/dev/disk/by-id/dm-name-${name}`);
    this.tree.remove(`/dev/disk/by-id/dm-uuid-mpath-${wwid}`);
    this.tree.remove(`/dev/dm-${minor}`);
  }

  loop(minor: number): void {
    this.tree.file(`/dev/loop${minor}`, '', 0o660);
  }

  removeLoop(minor: number): void {
    this.tree.remove(`/dev/loop${minor}`);
  }

  /**
   * udev's database record of a block device, `/run/udev/data/b<major>:<minor>`, one `E:KEY=VALUE`
   * line per property as systemd writes it (device-private.c device_update_db; the keys of
   * single-udevadm-info.txt and mp-udevadm-info-dm.txt). `fs` is what the blkid builtin found.
   */
  db(
    devt: string,
    props: readonly (readonly [string, string])[],
    fs?: { type: string; uuid?: string; label?: string },
  ): void {
    const all: [string, string][] = props.map(([k, v]) => [k, v]);
    if (fs) {
      if (fs.label !== undefined) {
        all.push(['ID_FS_LABEL', fs.label.replace(/\s/g, '_')]);
        all.push([
          'ID_FS_LABEL_ENC',
          fs.label.replace(
            /[^A-Za-z0-9#+\-.:=@_]/g,
            (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
          ),
        ]);
      }
      if (fs.uuid !== undefined) all.push(['ID_FS_UUID', fs.uuid], ['ID_FS_UUID_ENC', fs.uuid]);
      all.push(['ID_FS_TYPE', fs.type]);
      all.push(['ID_FS_USAGE', fs.type === 'mpath_member' ? 'other' : 'filesystem']);
    }
    const text = all.map(([k, v]) => `E:${k}=${v}`).join('\n');
    this.tree.file(`/run/udev/data/b${devt}`, `I:1000000\n${text}\nG:systemd\nQ:systemd\nV:1\n`);
  }

  removeDb(devt: string): void {
    this.tree.remove(`/run/udev/data/b${devt}`);
  }
}
