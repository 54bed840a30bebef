import { FsHost } from '../engine/host/fs-host.js';
import {
  type EntryKind,
  type Host,
  HostIoError,
  type RunOptions,
  type RunResult,
} from '../engine/host/host.js';
import type { Simulator } from './simulator.js';

/**
 * The Host seam over the simulated node. Reads go through FsHost on the materialised tree — the
 * very code a `--root` fixture uses — so the engine cannot tell it from a node except by `kind`.
 * The simulator only steps in where a real kernel is not a file: sysfs writes (scan, delete, state),
 * ENOTCONN on a down connection's address, a session vanishing mid-read, EBUSY for a mountpoint,
 * and commands (in-process simulated tools).
 */
export class SimHost implements Host {
  readonly kind = 'sim' as const;
  private readonly fs: FsHost;

  constructor(readonly sim: Simulator) {
    this.fs = new FsHost({ root: sim.root, runner: { mode: 'direct' }, hostname: sim.hostname });
  }

  get root(): string {
    return this.sim.root;
  }

  readText(path: string): string | undefined {
    const r = this.readTextOrError(path);
    return 'value' in r ? r.value : undefined;
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
    this.fs.writeText(path, data, mode);
  }

  appendText(path: string, data: string, mode?: number): void {
    this.fs.appendText(path, data, mode);
  }

  createExclusive(path: string, data: string): boolean {
    return this.fs.createExclusive(path, data);
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
    this.fs.unlink(path);
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return this.sim.run(argv, options);
  }

  hostname(): string {
    return this.sim.hostname;
  }

  now(): number {
    return this.sim.clock.now();
  }
}
