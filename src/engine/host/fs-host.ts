import * as fs from 'node:fs';
import { hostname as osHostname } from 'node:os';
import {
  type EntryInfo,
  type EntryKind,
  type FileReader,
  type Host,
  HostIoError,
  type LineStream,
  type RunOptions,
  type RunResult,
  type StreamHandlers,
} from './host.js';
import { under } from './path.js';
import { createRunner, type RunnerConfig, spawnLineStream, wrapArgv } from './runner.js';

function kindOf(st: fs.Stats): EntryKind {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}

/** Temp file names of this process: `<file>.<pid>.<n>.tmp`. */
let tempSeq = 0;

/** True when the byte at `size - 1` of the file is a newline (the last line is complete). */
function endsWithNewline(file: string, size: number): boolean {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const b = Buffer.alloc(1);
    return fs.readSync(fd, b, 0, 1, size - 1) === 1 && b[0] === 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}

/** One page: a sysfs attribute never returns more (fs/sysfs/file.c, PAGE_SIZE). Reads are synchronous. */
const READ_BUFFER = Buffer.alloc(4096);

function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? 'EIO';
}

/**
 * Turns V8's stack capture off for a read whose failure is an answer, not a bug (ENOENT for a
 * controller's missing `block` dir or a pod without block volumes, ENOTCONN for a down connection's
 * `address`): the error is swallowed or reduced to its code, so its stack is never seen, and
 * capturing it was about half the cost of a failed call (issue 9: 2,500 failed readdirs per
 * 1,000-session snapshot, ~25 ms → ~12 ms of user CPU). Returns the limit to restore.
 */
function stackOff(): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return limit;
}

/**
 * True when the first `text.length` bytes of `buf` are `text`'s char codes. Only used with a `text`
 * that decoded one char per byte: its chars are ASCII (same bytes) or U+FFFD (never equal to a
 * byte), so equal here means the same bytes and hence the same decoded string.
 */
function sameBytes(buf: Buffer, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (buf[i] !== text.charCodeAt(i)) return false;
  return true;
}

export interface FsHostOptions {
  /** Where host paths are accessed: `/` on the node, `/host` in a debug pod, a fixture dir in tests. */
  root: string;
  runner: RunnerConfig;
  /** Overrides the hostname (else `<root>/etc/hostname`, else the kernel's). */
  hostname?: string;
}

/**
 * A Host backed by the real filesystem under a root, with commands run through the one runner.
 * Used for the real node (`root: '/'`), `--root` trees, and — with an injected runner — the simulator.
 */
export class FsHost implements Host {
  readonly kind: 'real' | 'root';
  readonly root: string;
  private readonly runCommand: (argv: readonly string[], o?: RunOptions) => Promise<RunResult>;
  private readonly name: string | undefined;
  private readonly runnerConfig: RunnerConfig;

  constructor(options: FsHostOptions) {
    this.root = options.root;
    this.kind = options.root === '/' ? 'real' : 'root';
    this.runnerConfig = options.runner;
    this.runCommand = createRunner(options.runner);
    this.name = options.hostname;
  }

  protected at(path: string): string {
    return under(this.root, path);
  }

  readText(path: string): string | undefined {
    const limit = stackOff();
    try {
      return fs.readFileSync(this.at(path), 'utf8');
    } catch {
      return undefined;
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  readTextOrError(path: string): { value: string } | { error: string } {
    const limit = stackOff();
    try {
      return { value: fs.readFileSync(this.at(path), 'utf8') };
    } catch (e) {
      return { error: errCode(e) };
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  readDir(path: string): string[] {
    const limit = stackOff();
    try {
      return fs.readdirSync(this.at(path));
    } catch {
      return [];
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  readLink(path: string): string | undefined {
    const limit = stackOff();
    try {
      return fs.readlinkSync(this.at(path));
    } catch {
      return undefined;
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  lstat(path: string): EntryKind | undefined {
    const st = fs.lstatSync(this.at(path), { throwIfNoEntry: false });
    return st ? kindOf(st) : undefined;
  }

  stat(path: string): EntryKind | undefined {
    try {
      const st = fs.statSync(this.at(path), { throwIfNoEntry: false });
      return st ? kindOf(st) : undefined;
    } catch {
      return undefined;
    }
  }

  writeText(path: string, data: string, mode?: number): void {
    try {
      // sysfs attributes must be written in one write(2) on an existing file, opened write-only:
      // the kernel refuses a read-write open of a write-only attribute (`scan`, `device/delete`) with
      // EACCES even for root (seen on a real 6.1 kernel in the e2e suite). No O_CREAT either.
      if (path.startsWith('/sys/')) {
        const fd = fs.openSync(this.at(path), fs.constants.O_WRONLY);
        try {
          fs.writeSync(fd, data);
        } finally {
          fs.closeSync(fd);
        }
      } else {
        fs.writeFileSync(this.at(path), data, mode === undefined ? {} : { mode });
      }
    } catch (e) {
      throw new HostIoError('write', path, errCode(e));
    }
  }

  appendLine(path: string, line: string, mode = 0o600): boolean {
    let fd: number;
    try {
      const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants;
      fd = fs.openSync(this.at(path), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, mode);
    } catch (e) {
      throw new HostIoError('append', path, errCode(e));
    }
    let emptyBefore = false;
    try {
      const st = fs.fstatSync(fd);
      emptyBefore = st.size === 0;
      if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EINVAL' });
      const torn = st.size > 0 && !endsWithNewline(this.at(path), st.size);
      const data = Buffer.from(`${torn ? '\n' : ''}${line.endsWith('\n') ? line : `${line}\n`}`);
      const written = fs.writeSync(fd, data);
      if (written < data.length) {
        // A short write (the disk filled up): take our bytes back so no torn line is left behind.
        if (fs.fstatSync(fd).size === st.size + written) fs.ftruncateSync(fd, st.size);
        throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
      }
      fs.fsyncSync(fd);
      return torn;
    } catch (e) {
      // A journal this call created and could not write a byte to is not left behind empty.
      if (emptyBefore && fs.fstatSync(fd).size === 0) fs.rmSync(this.at(path), { force: true });
      throw new HostIoError('append', path, errCode(e));
    } finally {
      fs.closeSync(fd);
    }
  }

  createExclusive(path: string, data: string): boolean {
    const temp = this.writeTemp(path, data, 'create');
    try {
      fs.linkSync(temp, this.at(path));
      return true;
    } catch (e) {
      if (errCode(e) === 'EEXIST') return false;
      throw new HostIoError('create', path, errCode(e));
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }

  replaceFile(path: string, data: string): void {
    const temp = this.writeTemp(path, data, 'replace');
    try {
      fs.renameSync(temp, this.at(path));
    } catch (e) {
      fs.rmSync(temp, { force: true });
      throw new HostIoError('replace', path, errCode(e));
    }
  }

  /** Writes and flushes `<path>.<pid>.<n>.tmp` (O_EXCL, O_NOFOLLOW, 0600); removes it on failure. */
  private writeTemp(path: string, data: string, op: string): string {
    tempSeq += 1;
    const temp = `${this.at(path)}.${process.pid}.${tempSeq}.tmp`;
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    let fd: number | undefined;
    try {
      fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      const buf = Buffer.from(data);
      if (fs.writeSync(fd, buf) < buf.length)
        throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
      fs.fsyncSync(fd);
      return temp;
    } catch (e) {
      if (fd !== undefined) fs.rmSync(temp, { force: true });
      throw new HostIoError(op, path, errCode(e));
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  entryInfo(path: string): EntryInfo | undefined {
    const st = fs.lstatSync(this.at(path), { throwIfNoEntry: false });
    return st
      ? { kind: kindOf(st), uid: st.uid, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs, size: st.size }
      : undefined;
  }

  mkdir(path: string, mode = 0o750): void {
    try {
      fs.mkdirSync(this.at(path), { recursive: true, mode });
    } catch (e) {
      // Node's recursive mkdir answers ENOENT where mkdir(2) says EROFS (seen on a read-only
      // tmpfs, Node 22): when the parent is there, one plain mkdir gives the real cause.
      if (errCode(e) === 'ENOENT') {
        try {
          fs.mkdirSync(this.at(path), { mode });
          return;
        } catch (plain) {
          throw new HostIoError('mkdir', path, errCode(plain));
        }
      }
      throw new HostIoError('mkdir', path, errCode(e));
    }
  }

  rmdir(path: string): void {
    try {
      fs.rmdirSync(this.at(path));
    } catch (e) {
      throw new HostIoError('rmdir', path, errCode(e));
    }
  }

  unlink(path: string): void {
    try {
      fs.unlinkSync(this.at(path));
    } catch (e) {
      throw new HostIoError('unlink', path, errCode(e));
    }
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return this.runCommand(argv, options);
  }

  openReader(path: string): FileReader | undefined {
    let fd: number;
    try {
      fd = fs.openSync(this.at(path), 'r');
    } catch {
      return undefined;
    }
    let open = true;
    // The last value read, kept when it decoded one char per byte (ASCII: every sysfs state word).
    // A watcher re-reads the same `running\n` every tick: equal bytes give back the same string, so
    // no string is made per read and the caller's list compare is a pointer compare (issue 9 §2).
    let last = '';
    return {
      read() {
        if (!open) return undefined;
        const limit = stackOff();
        try {
          const n = fs.readSync(fd, READ_BUFFER, 0, READ_BUFFER.length, 0);
          if (n === last.length && sameBytes(READ_BUFFER, last)) return last;
          const value = READ_BUFFER.toString('utf8', 0, n);
          last = value.length === n ? value : '';
          return value;
        } catch {
          return undefined;
        } finally {
          Error.stackTraceLimit = limit;
        }
      },
      close() {
        if (!open) return;
        open = false;
        fs.closeSync(fd);
      },
    };
  }

  spawnStream(argv: readonly string[], handlers: StreamHandlers): LineStream {
    return spawnLineStream(wrapArgv(argv, this.runnerConfig), handlers);
  }

  /**
   * The node's name. Under a root (a debug pod's /host) the kernel's name is the node's only when the
   * console shares PID 1's UTS namespace (`kubectl debug node` and hostNetwork pods do); there it wins
   * over `<root>/etc/hostname`, which can be stale (set by DHCP or cloud-init at boot; in the e2e guest
   * it is the build machine's). In a pod of its own (the DaemonSet) the kernel's name is the pod's,
   * so the node's /etc/hostname is used.
   */
  hostname(): string {
    if (this.name) return this.name;
    if (this.root === '/') return osHostname();
    const uts = this.readLink('/proc/self/ns/uts');
    if (uts !== undefined && uts === this.readLink('/proc/1/ns/uts')) return osHostname();
    return this.readText('/etc/hostname')?.trim() || osHostname();
  }

  now(): number {
    return Date.now();
  }
}
