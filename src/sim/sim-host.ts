import * as fs from 'node:fs';
import { FsHost } from '../engine/host/fs-host.js';
import {
  type EntryInfo,
  type EntryKind,
  type FileReader,
  type Host,
  HostIoError,
  type RunOptions,
  type RunResult,
  type TcpConnectResult,
} from '../engine/host/host.js';
import { under } from '../engine/host/path.js';
import type { SimNode } from './context.js';

/** FsHost on the materialised tree, its one write(2) subject to the simulator's disk-full fault. */
class SimFs extends FsHost {
  constructor(private readonly sim: SimNode) {
    super({ root: sim.root, runner: { mode: 'direct' }, hostname: sim.hostname });
  }

  protected override writeBytes(path: string, fd: number, buf: Buffer, off: number, len: number): number {
    const room = this.sim.faults.writeRoom(path, len);
    if (room === 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    return super.writeBytes(path, fd, buf, off, room);
  }
}

/** One sysfs page (fs/sysfs/file.c): what a kept-open attribute read returns at most. */
const READ_BUFFER = Buffer.alloc(4096);

/**
 * The Host seam over the simulated node. Reads go through FsHost on the materialised tree — the
 * very code a `--root` fixture uses — so the engine cannot tell it from a node except by `kind`.
 * The simulator only steps in where a real kernel is not a file: sysfs writes (scan, delete, state),
 * ENOTCONN on a down connection's address, a session vanishing mid-read, EBUSY for a mountpoint,
 * and commands (in-process simulated tools).
 */
export class SimHost<S extends SimNode = SimNode> implements Host {
  readonly kind = 'sim' as const;
  private readonly fs: FsHost;

  constructor(readonly sim: S) {
    this.fs = new SimFs(sim);
  }

  get root(): string {
    return this.sim.root;
  }

  readText(path: string): string | undefined {
    const r = this.readTextOrError(path);
    return 'value' in r ? r.value : undefined;
  }

  readChunk(path: string, offset: number, length: number): { data: Buffer; size: number } | undefined {
    this.sim.beforeRead(path);
    if (this.sim.readError(path)) return undefined;
    return this.fs.readChunk(path, offset, length);
  }

  readTextOrError(path: string): { value: string } | { error: string } {
    this.sim.beforeRead(path);
    const refused = this.sim.readError(path);
    if (refused) return { error: refused };
    return this.fs.readTextOrError(path);
  }

  readDir(path: string): string[] {
    this.sim.beforeRead(path);
    return this.fs.readDir(path);
  }

  /**
   * A kept-open file, read with one pread(2) at offset 0 like FsHost's, so the watchers' poll costs
   * on the simulator what it costs on a node. It answers what a sysfs fd answers: once the kernel
   * object is gone, reads fail (ENODEV) — here the file was deleted, so an unlinked inode (nlink 0,
   * checked only after a removal anywhere in the tree) stands for it — and the faults a read by path
   * sees (a session vanishing on read, ENOTCONN of a down connection) fire the same way.
   */
  openReader(path: string): FileReader | undefined {
    let fd: number;
    try {
      fd = fs.openSync(under(this.sim.root, path), 'r');
    } catch {
      return undefined;
    }
    const tree = this.sim.tree;
    let open = true;
    let gone = false;
    let removals = tree.removals;
    return {
      read: () => {
        if (!open || gone) return undefined;
        this.sim.beforeRead(path);
        if (this.sim.readError(path)) return undefined;
        try {
          if (tree.removals !== removals) {
            removals = tree.removals;
            if (fs.fstatSync(fd).nlink === 0) {
              gone = true;
              return undefined;
            }
          }
          const n = fs.readSync(fd, READ_BUFFER, 0, READ_BUFFER.length, 0);
          return READ_BUFFER.toString('utf8', 0, n);
        } catch {
          return undefined;
        }
      },
      close: () => {
        if (!open) return;
        open = false;
        fs.closeSync(fd);
      },
    };
  }

  readLink(path: string): string | undefined {
    return this.fs.readLink(path);
  }

  lstat(path: string): EntryKind | undefined {
    return this.fs.lstat(path);
  }

  stat(path: string): EntryKind | undefined {
    return this.fs.stat(path);
  }

  writeText(path: string, data: string, mode?: number): void {
    if (path.startsWith('/sys/')) {
      // Attributes are reached through class/block symlinks; the kernel object is the real path.
      const real = this.sim.tree.realpath(path);
      if (!real) throw new HostIoError('write', path, 'ENOENT');
      try {
        this.sim.kernel.writeSysfs(real, data);
      } catch (e) {
        if (e instanceof HostIoError) throw new HostIoError('write', path, e.code);
        throw e;
      }
      return;
    }
    if (path.startsWith('/proc/')) throw new HostIoError('write', path, 'EACCES');
    try {
      this.fs.writeText(path, data, mode);
    } finally {
      // Someone edited a DB record file (a failed write may have cut it): the next iscsiadm
      // re-reads the DB (NodeDb.reload).
      if (path.startsWith('/etc/iscsi/')) this.sim.db.dirty = true;
    }
  }

  appendLine(path: string, line: string, mode?: number): boolean {
    return this.fs.appendLine(path, line, mode);
  }

  createExclusive(path: string, data: string): boolean {
    return this.fs.createExclusive(path, data);
  }

  replaceFile(path: string, data: string, mode?: number): void {
    this.fs.replaceFile(path, data, mode);
    if (path.startsWith('/etc/iscsi/')) this.sim.db.dirty = true;
  }

  entryInfo(path: string): EntryInfo | undefined {
    return this.fs.entryInfo(path);
  }

  mkdir(path: string, mode?: number): void {
    this.fs.mkdir(path, mode);
  }

  /** rmdir(2) of a mountpoint is EBUSY on Linux: never removes what a mount covers. */
  rmdir(path: string): void {
    if (this.sim.mounts.find(path)) throw new HostIoError('rmdir', path, 'EBUSY');
    this.fs.rmdir(path);
  }

  unlink(path: string): void {
    if (this.sim.mounts.find(path)) throw new HostIoError('unlink', path, 'EBUSY');
    this.sim.tree.removals++;
    this.fs.unlink(path);
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return this.sim.run(argv, options);
  }

  /** The simulated kernel's log (Simulator.kmsg), newest `maxRecords`. */
  readKernelLog(maxRecords: number): string[] {
    return this.sim.kmsg.slice(-maxRecords);
  }

  /** The SAN answers: accepted when the portal is up and something listens there, else refused. */
  connectTcp(address: string, port: number, _timeoutMs: number): Promise<TcpConnectResult> {
    return Promise.resolve(this.sim.connectTcp(address, port));
  }

  startRead(): void {
    this.fs.startRead();
  }

  endRead(): void {
    this.fs.endRead();
  }

  takeReadProblems(): string[] {
    return this.fs.takeReadProblems();
  }

  resolvePath(path: string): string | undefined {
    return this.fs.resolvePath(path);
  }

  hostname(): string {
    return this.sim.hostname;
  }

  now(): number {
    return this.sim.clock.now();
  }
}
