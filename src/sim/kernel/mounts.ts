import * as fs from 'node:fs';
import type { Tree } from '../tree.js';

/** One line of /proc/1/mountinfo. */
export interface SimMount {
  id: number;
  parent: number;
  devt: string;
  /** Path inside the mounted filesystem (`/` or, for a bind of a device node, `/sda`). */
  root: string;
  mountpoint: string;
  options: string;
  optional: string;
  fstype: string;
  source: string;
  superOptions: string;
  /** A bind mount (its entries are a view of the source, not the filesystem's own store). */
  bind?: boolean;
}

/** Octal escapes of show_mountinfo (fs/proc_namespace.c mangle: space, tab, newline, backslash). */
function mangle(path: string): string {
  return path.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/** The root, /sys, /proc, /dev and /run mounts every node has (ids as on the lab guest). */
const BASE: Omit<SimMount, 'id' | 'parent'>[] = [
  {
    devt: '253:1',
    root: '/',
    mountpoint: '/',
    options: 'rw,relatime',
    optional: 'shared:1',
    fstype: 'ext4',
    source: '/dev/vda1',
    superOptions: 'rw,errors=remount-ro',
  },
  {
    devt: '0:21',
    root: '/',
    mountpoint: '/sys',
    options: 'rw,nosuid,nodev,noexec,relatime',
    optional: 'shared:7',
    fstype: 'sysfs',
    source: 'sysfs',
    superOptions: 'rw',
  },
  {
    devt: '0:22',
    root: '/',
    mountpoint: '/proc',
    options: 'rw,nosuid,nodev,noexec,relatime',
    optional: 'shared:12',
    fstype: 'proc',
    source: 'proc',
    superOptions: 'rw',
  },
  {
    devt: '0:5',
    root: '/',
    mountpoint: '/dev',
    options: 'rw,nosuid,relatime',
    optional: 'shared:2',
    fstype: 'devtmpfs',
    source: 'udev',
    superOptions: 'rw,size=4015292k,nr_inodes=1003823,mode=755',
  },
  {
    devt: '0:23',
    root: '/',
    mountpoint: '/run',
    options: 'rw,nosuid,nodev,noexec,relatime',
    optional: 'shared:5',
    fstype: 'tmpfs',
    source: 'tmpfs',
    superOptions: 'rw,size=806416k,mode=755',
  },
];

/**
 * The mount namespace of PID 1: mount/umount keep /proc/1/mountinfo (and /proc/self/mountinfo)
 * in step, and a mount really hides what was in its directory (kubelet's iscsi.json lies under
 * the volume's mount, docs/kubelet-iscsi.md#iscsijson): the directory's entries move to a shadow store
 * outside the tree and come back on umount; a filesystem's own entries are kept per filesystem.
 */
export class MountTable {
  readonly mounts: SimMount[] = [];
  readonly swaps: { path: string; sizeKb: number }[] = [];
  private nextId = 21;
  private nextShared = 200;

  constructor(
    private readonly tree: Tree,
    private readonly stateDir: string,
  ) {
    for (const m of BASE)
      this.mounts.push({ ...m, id: this.nextId++, parent: m.mountpoint === '/' ? 1 : 21 });
    this.nextId = 30;
    fs.mkdirSync(`${stateDir}/shadow`, { recursive: true });
    fs.mkdirSync(`${stateDir}/fs`, { recursive: true });
  }

  /** The innermost mount containing a path (the parent of a new mount). */
  private parentOf(path: string): SimMount {
    let best = this.mounts[0]!;
    for (const m of this.mounts) {
      const under = m.mountpoint === '/' || path === m.mountpoint || path.startsWith(`${m.mountpoint}/`);
      if (under && m.mountpoint.length >= best.mountpoint.length) best = m;
    }
    return best;
  }

  find(mountpoint: string): SimMount | undefined {
    return [...this.mounts].reverse().find((m) => m.mountpoint === mountpoint);
  }

  /**
   * Adds a mount. `fsKey` names the filesystem's content store (a LUN's filesystem UUID) so its
   * entries (lost+found, files kubelet wrote inside) survive umount and reappear on the next mount.
   */
  mount(
    m: Omit<SimMount, 'id' | 'parent' | 'optional'>,
    fsKey: string | undefined,
    bindFrom?: string,
  ): SimMount {
    const parent = this.parentOf(m.mountpoint);
    const full: SimMount = {
      ...m,
      id: this.nextId++,
      parent: parent.id,
      optional: `shared:${this.nextShared++}`,
    };
    if (this.tree.isDir(m.mountpoint)) {
      const shadow = `${this.stateDir}/shadow/${full.id}`;
      fs.mkdirSync(shadow, { recursive: true });
      this.moveChildren(this.tree.at(m.mountpoint), shadow);
      if (bindFrom !== undefined) {
        fs.cpSync(this.tree.at(bindFrom), this.tree.at(m.mountpoint), {
          recursive: true,
          verbatimSymlinks: true,
        });
      } else if (fsKey) {
        const store = this.fsStore(fsKey, m.fstype);
        this.moveChildren(store, this.tree.at(m.mountpoint));
      }
    }
    this.mounts.push(full);
    return full;
  }

  /** Removes the topmost mount at a mountpoint, restoring what it hid. */
  umount(m: SimMount, fsKey: string | undefined, isBind: boolean): void {
    this.mounts.splice(this.mounts.indexOf(m), 1);
    const dir = this.tree.at(m.mountpoint);
    if (!this.tree.isDir(m.mountpoint)) return;
    if (!isBind && fsKey) this.moveChildren(dir, this.fsStore(fsKey, m.fstype));
    else for (const e of fs.readdirSync(dir)) fs.rmSync(`${dir}/${e}`, { recursive: true, force: true });
    const shadow = `${this.stateDir}/shadow/${m.id}`;
    if (fs.existsSync(shadow)) {
      this.moveChildren(shadow, dir);
      fs.rmdirSync(shadow);
    }
  }

  private fsStore(fsKey: string, fstype: string): string {
    const store = `${this.stateDir}/fs/${fsKey}`;
    if (!fs.existsSync(store)) {
      fs.mkdirSync(store, { recursive: true });
      if (fstype.startsWith('ext')) fs.mkdirSync(`${store}/lost+found`);
    }
    return store;
  }

  /** Forgets a filesystem's content (mkfs made a new one). */
  wipe(fsKey: string): void {
    fs.rmSync(`${this.stateDir}/fs/${fsKey}`, { recursive: true, force: true });
  }

  private moveChildren(from: string, to: string): void {
    for (const e of fs.readdirSync(from)) fs.renameSync(`${from}/${e}`, `${to}/${e}`);
  }

  /** /proc/<pid>/mountinfo text: `ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS OPTIONAL - FSTYPE SOURCE SUPER`. */
  mountinfo(): string {
    return this.mounts
      .map(
        (m) =>
          `${m.id} ${m.parent} ${m.devt} ${mangle(m.root)} ${mangle(m.mountpoint)} ${m.options} ${m.optional} - ${m.fstype} ${mangle(m.source)} ${m.superOptions}\n`,
      )
      .join('');
  }

  /** /proc/swaps text (a swap partition shows here, not in mountinfo). */
  procSwaps(): string {
    const head = 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n';
    return head + this.swaps.map((s) => `${s.path.padEnd(40)}partition\t${s.sizeKb}\t\t0\t\t-2\n`).join('');
  }

  /** Re-materialises the proc files after a change. */
  write(): void {
    const info = this.mountinfo();
    this.tree.file('/proc/1/mountinfo', info, 0o444);
    this.tree.file('/proc/self/mountinfo', info, 0o444);
    this.tree.file(
      '/proc/mounts',
      this.mounts.map((m) => `${m.source} ${mangle(m.mountpoint)} ${m.fstype} ${m.options} 0 0\n`).join(''),
      0o444,
    );
    this.tree.file('/proc/swaps', this.procSwaps(), 0o444);
  }
}
