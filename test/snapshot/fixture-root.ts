import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import type { Host } from '../../src/engine/host/host.js';
import { makePDName, makeVDPDName, podDeviceDir, podVolumeDir } from '../../src/engine/kubelet/paths.js';
import {
  linkHost,
  materializeSysfs,
  mkHostDir,
  tempRoot,
  writeHostFile,
} from '../helpers/materialize-sysfs.js';

export const KROOT = '/var/lib/kubelet';
export const IQN1 = 'iqn.2024-01.lab.example:storage.target1';
export const IQN2 = 'iqn.2024-01.lab.example:storage.target2';
export const P1 = '127.0.0.1:3260';
export const P2 = '127.0.0.2:3260';
/** Mountinfo prefix lines of a plain node (root fs and /proc), like the captures' parents. */
export const BASE_MOUNTINFO = [
  '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw',
  '23 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=4000k,mode=755',
  '24 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
];

const templates = new Map<string, string>();
// Registered while the importing test file is collected: drops this file's templates at its end.
afterAll(() => {
  for (const t of templates.values()) fs.rmSync(t, { recursive: true, force: true });
  templates.clear();
});

/** A fixture root: a materialised capture plus hand-made kubelet tree, mount table and swap list. */
export class FixtureRoot {
  readonly root: string;
  constructor(capture?: string) {
    this.root = tempRoot();
    if (capture) {
      // Materialise each capture once per worker, then copy it (cp -a keeps the relative symlinks).
      let template = templates.get(capture);
      if (!template) {
        template = materializeSysfs(capture, tempRoot('iscsi-tpl-'));
        templates.set(capture, template);
      }
      execFileSync('cp', ['-a', `${template}/sys`, this.root]);
    }
    // Every node has a sysfs with class/ (a root without /sys and /proc is not a node: exit 2).
    mkHostDir(this.root, '/sys/class');
    this.mountinfo([]);
  }

  host(): Host {
    return new FsHost({ root: this.root, runner: { mode: 'direct' }, hostname: 'node-a' });
  }

  /** Host path → absolute path in the fixture. */
  at(hostPath: string): string {
    return path.join(this.root, hostPath);
  }

  write(hostPath: string, text: string): this {
    writeHostFile(this.root, hostPath, text);
    return this;
  }

  /** Sets /proc/1/mountinfo to the base lines plus these. */
  mountinfo(lines: string[]): this {
    return this.write('/proc/1/mountinfo', `${[...BASE_MOUNTINFO, ...lines].join('\n')}\n`);
  }

  swaps(paths: string[]): this {
    const body = paths.map((p) => `${p.padEnd(40)}partition\t1020\t\t0\t\t-2`).join('\n');
    return this.write('/proc/swaps', `Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n${body}\n`);
  }

  /** A filesystem global dir (optionally with iscsi.json text). Returns its host path. */
  fsVolume(
    portal: string,
    iqn: string,
    lun: number | string,
    json?: string | object,
    iface = 'default',
  ): string {
    const p = makePDName(KROOT, iface, portal, iqn, lun);
    mkHostDir(this.root, p);
    if (json !== undefined)
      this.write(`${p}/iscsi.json`, typeof json === 'string' ? json : `${JSON.stringify(json)}\n`);
    return p;
  }

  /** A block global map path with iscsi.json and per-pod device node files. */
  blockVolume(
    portal: string,
    iqn: string,
    lun: number,
    json: object | undefined,
    podUids: string[],
    iface = 'default',
  ): string {
    const p = makeVDPDName(KROOT, iface, portal, iqn, lun);
    mkHostDir(this.root, p);
    if (json) this.write(`${p}/iscsi.json`, `${JSON.stringify(json)}\n`);
    for (const u of podUids) this.write(`${p}/${u}`, '');
    return p;
  }

  podFsVolume(uid: string, vol: string): string {
    const p = podVolumeDir(KROOT, uid, vol);
    mkHostDir(this.root, p);
    return p;
  }

  podBlockVolume(uid: string, vol: string, dev: string): string {
    const p = podDeviceDir(KROOT, uid, vol);
    linkHost(this.root, p, dev);
    return p;
  }

  /** Binds a loop device to a backing file (sysfs `loop/backing_file`). */
  loop(name: string, backingFile: string): this {
    mkHostDir(this.root, `/sys/devices/virtual/block/${name}/loop`);
    this.write(`/sys/devices/virtual/block/${name}/loop/backing_file`, `${backingFile}\n`);
    linkHost(this.root, `/sys/block/${name}`, `../devices/virtual/block/${name}`);
    return this;
  }

  /** Adds a partition to a captured disk: `<disk dir>/<part>/{dev,partition,holders/}`. */
  partition(disk: string, part: string, majMin: string): this {
    const diskDir = fs.realpathSync(this.at(`/sys/block/${disk}`));
    fs.mkdirSync(path.join(diskDir, part, 'holders'), { recursive: true });
    fs.writeFileSync(path.join(diskDir, part, 'dev'), `${majMin}\n`);
    fs.writeFileSync(path.join(diskDir, part, 'partition'), `${part.slice(disk.length)}\n`);
    return this;
  }

  /** Adds /sys/class/block links (the captures only have /sys/block) for disks and partitions. */
  classBlock(names: string[]): this {
    for (const n of names) {
      const disk = n.replace(/\d+$/, '');
      const target = fs.readlinkSync(this.at(`/sys/block/${disk}`)).replace(/^\.\.\//, '../../');
      linkHost(this.root, `/sys/class/block/${n}`, n === disk ? target : `${target}/${n}`);
    }
    return this;
  }

  /** Overwrites a sysfs attribute reached through a class or block path. */
  setAttr(hostPath: string, value: string): this {
    fs.writeFileSync(fs.realpathSync(this.at(path.dirname(hostPath))) + `/${path.basename(hostPath)}`, value);
    return this;
  }

  cleanup(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** kubelet's iscsi.json for a volume (what persistISCSI writes; docs/kubelet-iscsi.md#iscsijson). */
export function iscsiJson(volName: string, portals: string[], iqn: string, lun: number): object {
  return {
    VolName: volName,
    Portals: portals,
    Iqn: iqn,
    Lun: String(lun),
    InitIface: 'default',
    Iface: 'default',
    InitiatorName: '',
    MetricsProvider: null,
  };
}
