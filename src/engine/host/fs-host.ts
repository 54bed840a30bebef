import * as fs from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { type ResolvedKind, ResolveError, RootResolver } from './confine.js';
import {
  changeTarget,
  checkWritable,
  type LayoutDir,
  mkdirNoLinks,
  replaceAtomic,
  type WriteBytes,
  writeAll,
  writeTemp,
} from './fs-mutate.js';
import {
  CHUNK_MAX,
  type EntryInfo,
  type EntryKind,
  type FileReader,
  type Host,
  HostIoError,
  type LineStream,
  type RunOptions,
  type RunResult,
  type StreamHandlers,
  type TcpConnectResult,
} from './host.js';
import { under } from './path.js';
import { type ReadCap, readCapFor } from './read-caps.js';
import { connectTcp, createRunner, type RunnerConfig, spawnLineStream, wrapArgv } from './runner.js';

function kindOf(st: fs.Stats): EntryKind {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}

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
 * capturing it was about half the cost of a failed call (bench/README.md: 2,500 failed readdirs per
 * 1,000-session snapshot, ~25 ms → ~12 ms of user CPU). A throw gives `failed`'s answer.
 */
function quietly<T>(read: () => T, failed: (e: unknown) => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return read();
  } catch (e) {
    return failed(e);
  } finally {
    Error.stackTraceLimit = limit;
  }
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

interface FsHostOptions {
  /** Where host paths are accessed: `/` on the node, `/host` in a debug pod, a fixture dir in tests. */
  root: string;
  runner: RunnerConfig;
  /** Overrides the hostname (else `<root>/etc/hostname`, else the kernel's). */
  hostname?: string;
}

/**
 * Reads open read-only and non-blocking: a FIFO planted where an attribute should be then answers at
 * once (EOF or EAGAIN) instead of blocking the synchronous open forever (deaf to SIGINT).
 */
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;
/** Under a root the final component was resolved by us: the kernel must not follow it again. */
const ROOTED_READ_FLAGS = READ_FLAGS | fs.constants.O_NOFOLLOW;
/** sysfs attributes: write-only, existing, one write(2); see writeText. */
const SYSFS_WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_NONBLOCK;
const FILE_WRITE_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NONBLOCK;

/** Reads up to this much into one shared buffer; larger caps grow a buffer of their own. */
const SHARED_READ = Buffer.allocUnsafe(64 * 1024);
/** Refused-read problems kept until the next snapshot drains them (a bound, not a working size). */
const MAX_READ_PROBLEMS = 200;

/** A read the Host refused on its own (not a regular file, over its cap): a per-item problem. */
class ReadRefused extends Error {
  constructor(
    readonly code: string,
    readonly problem: string,
  ) {
    super(code);
  }
}

export function describeKind(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Reads an open fd whole, refusing what is not a regular file (sysfs and procfs attributes are) and
 * anything over `cap` bytes (read-caps.ts). procfs files stat as size 0, so the size only shortcuts
 * the loop when it is known; otherwise it reads in bounded chunks until EOF or one byte past the cap.
 */
export function readBounded(fd: number, path: string, cap: ReadCap): string {
  const st = fs.fstatSync(fd);
  // A directory answers EISDIR, as read(2) does: a wrong path, not an odd file.
  if (st.isDirectory()) throw new ResolveError('EISDIR');
  if (!st.isFile()) {
    throw new ReadRefused('ENOTREG', `${path}: ${describeKind(st)}, not a regular file; not read`);
  }
  const limit = cap.bytes;
  if (st.size > limit) throw new ReadRefused('EFBIG', oversized(path, cap, `${st.size} bytes`));
  let buf = SHARED_READ;
  if (limit >= buf.length && st.size >= buf.length)
    buf = Buffer.allocUnsafe(Math.min(limit + 1, st.size + 1));
  let n = 0;
  for (;;) {
    if (n === buf.length) {
      if (n > limit) break;
      const bigger = Buffer.allocUnsafe(Math.min(limit + 1, buf.length * 2));
      buf.copy(bigger, 0, 0, n);
      buf = bigger;
    }
    const want = Math.min(buf.length - n, limit + 1 - n);
    const r = fs.readSync(fd, buf, n, want, null);
    if (r === 0) break;
    n += r;
    if (n > limit) break;
    // A regular file whose size stat knows (not procfs' 0, not sysfs' page-sized 4096 for a shorter
    // value) is complete at that size: no extra read(2) to see EOF.
    if (st.size > 0 && n === st.size) break;
  }
  if (n > limit) throw new ReadRefused('EFBIG', oversized(path, cap, 'more'));
  return buf.toString('utf8', 0, n);
}

function oversized(path: string, cap: ReadCap, size: string): string {
  return `${path}: ${size} than the ${cap.bytes}-byte cap for a ${cap.what}; not read`;
}

/**
 * A file kept open and re-read with one pread(2) at offset 0 (FsHost.openReader). A class, not a
 * pair of closures: the watcher keeps one per disk for the console's lifetime, and an instance is a
 * quarter of their size (~0.7 MB less at 4,000 disks, bench/README.md).
 */
class PageReader implements FileReader {
  private open = true;
  /**
   * The last value read, kept when it decoded one char per byte (ASCII: every sysfs state word).
   * A watcher re-reads the same `running\n` every tick: equal bytes give back the same string, so
   * no string is made per read and the caller's list compare is a pointer compare (bench/README.md).
   */
  private last = '';

  constructor(private readonly fd: number) {}

  read(): string | undefined {
    if (!this.open) return undefined;
    return quietly(
      () => {
        const n = fs.readSync(this.fd, READ_BUFFER, 0, READ_BUFFER.length, 0);
        if (n === this.last.length && sameBytes(READ_BUFFER, this.last)) return this.last;
        const value = READ_BUFFER.toString('utf8', 0, n);
        this.last = value.length === n ? value : '';
        return value;
      },
      () => undefined,
    );
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    fs.closeSync(this.fd);
  }
}

/**
 * A Host backed by the real filesystem under a root, with commands run through the one runner.
 * Used for the real node (`root: '/'`), `--root` trees, and — with an injected runner — the simulator.
 *
 * On the node itself (`/`) the kernel resolves paths as they are. Under any other root every path is
 * resolved inside the root first (confine.ts: chroot semantics, absolute links re-rooted, `..`
 * stopped at the root), so nothing a tree's links say can make a read land outside it; the final
 * component is then opened with O_NOFOLLOW. A change (write, replace, mkdir, rmdir, unlink) goes
 * through no symlink at all, on `/` as under a root (fs-mutate.ts).
 */
export class FsHost implements Host {
  readonly kind: 'real' | 'root';
  readonly root: string;
  private readonly runCommand: (argv: readonly string[], o?: RunOptions) => Promise<RunResult>;
  private readonly name: string | undefined;
  private readonly runnerConfig: RunnerConfig;
  /** Resolution inside the root, with its per-snapshot directory cache; none on `/`. */
  private readonly resolver: RootResolver | undefined;
  private readonly base: string;
  private readProblems: string[] = [];
  /**
   * Where one of the node's layout dirs (fs-mutate.ts LAYOUT_DEPTH) really is: on `/` the path
   * itself when it is a directory (the kernel follows its links), under a root resolved afresh
   * inside it; undefined when missing.
   */
  private readonly layout: LayoutDir = (dir) => {
    if (!this.resolver) return fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? dir : undefined;
    try {
      return new RootResolver(this.base).dirReal(dir);
    } catch (e) {
      if (errCode(e) === 'ENOENT') return undefined;
      throw e;
    }
  };
  /** writeBytes as the fs-mutate helpers call it (a subclass's override included). */
  private readonly write: WriteBytes = (p, fd, buf, off, len) => this.writeBytes(p, fd, buf, off, len);

  constructor(options: FsHostOptions) {
    this.root = options.root;
    this.kind = options.root === '/' ? 'real' : 'root';
    this.runnerConfig = options.runner;
    this.runCommand = createRunner(options.runner);
    this.name = options.hostname;
    this.base = options.root.replace(/\/+$/, '');
    this.resolver = this.base === '' ? undefined : new RootResolver(this.base);
  }

  /** Where a host path is, for `/` (lexically cleaned; the kernel resolves the rest). */
  protected at(path: string): string {
    return under(this.root, path);
  }

  /** A new snapshot begins: directories resolved for the last one may have changed. */
  startRead(): void {
    this.resolver?.reading(true);
  }

  /** The snapshot is read: its directories are not kept until the next one (host.ts). */
  endRead(): void {
    this.resolver?.reading(false);
  }

  /** Problems of reads refused since the last call (odd files, oversized files, link loops). */
  takeReadProblems(): string[] {
    if (this.readProblems.length === 0) return [];
    const out = this.readProblems;
    this.readProblems = [];
    return out;
  }

  /** The real path of a host path, resolved inside the root (for chokidar); undefined when absent. */
  resolvePath(path: string): string | undefined {
    if (!this.resolver) return this.at(path);
    try {
      const r = this.resolver.resolve(path, true);
      return r.kind === 'absent' ? undefined : r.real;
    } catch {
      return undefined;
    }
  }

  private noteProblem(e: unknown, path: string): void {
    let text: string | undefined;
    if (e instanceof ReadRefused) text = e.problem;
    else if (errCode(e) === 'ELOOP') text = `${path}: too many levels of symbolic links (ELOOP); not read`;
    if (text === undefined || this.readProblems.length >= MAX_READ_PROBLEMS) return;
    if (!this.readProblems.includes(text)) this.readProblems.push(text);
  }

  /** Opens a file for reading; under a root, resolved inside it and never through a final link. */
  private openForRead(path: string): number {
    const r = this.resolver;
    if (!r) return fs.openSync(this.at(path), READ_FLAGS);
    const real = r.entry(path);
    if (real !== undefined) {
      try {
        return fs.openSync(real, ROOTED_READ_FLAGS);
      } catch (e) {
        // ELOOP: the final component is a symlink; resolve it inside the root below.
        if (errCode(e) !== 'ELOOP') throw e;
      }
    }
    const t = r.resolve(path, true);
    if (t.kind === 'absent') throw new ResolveError('ENOENT');
    if (t.kind === 'dir') throw new ResolveError('EISDIR');
    if (t.kind !== 'file') {
      // Refused before open(2): opening some devices has effects of its own (a watchdog, a tape).
      throw new ReadRefused(
        'ENOTREG',
        `${path}: links to a device, FIFO or socket, not a regular file; not read`,
      );
    }
    return fs.openSync(t.real, ROOTED_READ_FLAGS);
  }

  private readBoundedAt(path: string): string {
    const fd = this.openForRead(path);
    try {
      return readBounded(fd, path, readCapFor(path));
    } finally {
      fs.closeSync(fd);
    }
  }

  readChunk(path: string, offset: number, length: number): { data: Buffer; size: number } | undefined {
    return quietly(
      () => {
        const fd = this.openForRead(path);
        try {
          const st = fs.fstatSync(fd);
          if (!st.isFile())
            throw new ReadRefused('ENOTREG', `${path}: ${describeKind(st)}, not a regular file; not read`);
          const from = Math.max(0, Math.min(offset, st.size));
          const want = Math.max(0, Math.min(length, CHUNK_MAX, st.size - from));
          const data = Buffer.allocUnsafe(want);
          let n = 0;
          while (n < want) {
            const r = fs.readSync(fd, data, n, want - n, from + n);
            if (r === 0) break;
            n += r;
          }
          return { data: data.subarray(0, n), size: st.size };
        } finally {
          fs.closeSync(fd);
        }
      },
      (e) => {
        this.noteProblem(e, path);
        return undefined;
      },
    );
  }

  readText(path: string): string | undefined {
    return quietly(
      () => this.readBoundedAt(path),
      (e) => {
        this.noteProblem(e, path);
        return undefined;
      },
    );
  }

  readTextOrError(path: string): { value: string } | { error: string } {
    return quietly<{ value: string } | { error: string }>(
      () => ({ value: this.readBoundedAt(path) }),
      (e) => {
        this.noteProblem(e, path);
        return { error: errCode(e) };
      },
    );
  }

  readDir(path: string): string[] {
    return quietly(
      () => {
        const r = this.resolver;
        if (!r) return fs.readdirSync(this.at(path));
        return r.list(path) ?? [];
      },
      (e) => {
        this.noteProblem(e, path);
        return [];
      },
    );
  }

  /** Where the entry `path` names itself (its final component not followed), under a root. */
  private entryAt(path: string, r: RootResolver): string {
    return r.entry(path) ?? r.dirReal(path);
  }

  readLink(path: string): string | undefined {
    const r = this.resolver;
    return quietly(
      () => fs.readlinkSync(r ? this.entryAt(path, r) : this.at(path)),
      () => undefined,
    );
  }

  lstat(path: string): EntryKind | undefined {
    const r = this.resolver;
    const at = (p: string) => {
      const st = fs.lstatSync(p, { throwIfNoEntry: false });
      return st ? kindOf(st) : undefined;
    };
    if (!r) return at(this.at(path));
    return quietly(
      () => at(this.entryAt(path, r)),
      () => undefined,
    );
  }

  stat(path: string): EntryKind | undefined {
    const r = this.resolver;
    return quietly(
      () => {
        if (!r) {
          const st = fs.statSync(this.at(path), { throwIfNoEntry: false });
          return st ? kindOf(st) : undefined;
        }
        const t = r.resolve(path, true);
        return t.kind === 'absent' ? undefined : t.kind;
      },
      (e) => {
        this.noteProblem(e, path);
        return undefined;
      },
    );
  }

  /**
   * Where a change to `path` lands: on `/` the path itself; under a root, resolved afresh (no
   * cached directory: a change must see the tree as it is now) with the final link followed when
   * `follow` is set. Returns the real path and what is there now.
   */
  private target(path: string, follow: boolean): { real: string; kind: ResolvedKind | undefined } {
    if (!this.resolver) return { real: this.at(path), kind: undefined };
    const fresh = new RootResolver(this.base);
    if (!follow) {
      const { real, name } = fresh.parentAndName(path);
      if (name === '' || name === '.' || name === '..') throw new ResolveError('EINVAL');
      return { real: `${real}/${name}`, kind: undefined };
    }
    const t = fresh.resolve(path, true);
    return { real: t.real, kind: t.kind };
  }

  writeText(path: string, data: string, mode?: number): void {
    if (!path.startsWith('/sys/')) {
      const real = changeTarget(this.layout, path, 'write');
      checkWritable(real, path, 'write');
      let fd: number;
      try {
        fd = fs.openSync(real, FILE_WRITE_FLAGS | fs.constants.O_NOFOLLOW, mode);
      } catch (e) {
        throw new HostIoError('write', path, errCode(e));
      }
      try {
        writeAll(this.write, path, fd, Buffer.from(data, 'utf8'));
      } catch (e) {
        throw new HostIoError('write', path, errCode(e));
      } finally {
        fs.closeSync(fd);
      }
      return;
    }
    try {
      const rooted = this.resolver !== undefined;
      const { real, kind } = this.target(path, true);
      if (kind === 'dir') throw new ResolveError('EISDIR');
      if (kind === 'other') throw new ResolveError('ENOTREG');
      const nofollow = rooted ? fs.constants.O_NOFOLLOW : 0;
      // sysfs attributes must be written in one write(2) on an existing file, opened write-only:
      // the kernel refuses a read-write open of a write-only attribute (`scan`, `device/delete`) with
      // EACCES even for root (seen on a real 6.1 kernel in the e2e suite). No O_CREAT either.
      const fd = fs.openSync(real, SYSFS_WRITE_FLAGS | nofollow);
      try {
        fs.writeSync(fd, data);
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      throw new HostIoError('write', path, errCode(e));
    }
  }

  /**
   * One write(2): the only place file data reaches the disk, so the simulator can fill the disk
   * (src/sim/faults.ts diskFull) under the very code a node runs.
   */
  protected writeBytes(_path: string, fd: number, buf: Buffer, off: number, len: number): number {
    return fs.writeSync(fd, buf, off, len);
  }

  appendLine(path: string, line: string, mode = 0o600): boolean {
    let fd: number;
    let real: string;
    try {
      const t = this.target(path, true);
      if (t.kind !== undefined && t.kind !== 'file' && t.kind !== 'absent') throw new ResolveError('ENOTREG');
      real = t.real;
      // O_NONBLOCK: a FIFO planted as the journal answers ENXIO instead of hanging the open.
      const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
      fd = fs.openSync(real, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, mode);
    } catch (e) {
      throw new HostIoError('append', path, errCode(e));
    }
    let emptyBefore = false;
    try {
      const st = fs.fstatSync(fd);
      emptyBefore = st.size === 0;
      if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EINVAL' });
      const torn = st.size > 0 && !endsWithNewline(real, st.size);
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
      if (emptyBefore && fs.fstatSync(fd).size === 0) fs.rmSync(real, { force: true });
      throw new HostIoError('append', path, errCode(e));
    } finally {
      fs.closeSync(fd);
    }
  }

  createExclusive(path: string, data: string): boolean {
    // link(2) never follows a final symlink at the destination: an existing link counts as existing.
    const real = changeTarget(this.layout, path, 'create');
    const temp = writeTemp(this.write, real, path, data, 'create', 0o600);
    try {
      fs.linkSync(temp, real);
      return true;
    } catch (e) {
      if (errCode(e) === 'EEXIST') return false;
      throw new HostIoError('create', path, errCode(e));
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }

  replaceFile(path: string, data: string, mode = 0o600): void {
    replaceAtomic(this.write, changeTarget(this.layout, path, 'replace'), path, data, mode);
  }

  entryInfo(path: string): EntryInfo | undefined {
    let real: string;
    try {
      real = this.target(path, false).real;
    } catch {
      return undefined;
    }
    const st = fs.lstatSync(real, { throwIfNoEntry: false });
    return st
      ? { kind: kindOf(st), uid: st.uid, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs, size: st.size }
      : undefined;
  }

  mkdir(path: string, mode = 0o750): void {
    mkdirNoLinks(this.layout, path, mode);
  }

  rmdir(path: string): void {
    // rmdir(2) never follows its final component: a link there is ENOTDIR, not its target removed.
    this.removeEntry('rmdir', path, fs.rmdirSync);
  }

  unlink(path: string): void {
    // unlink(2) removes a final symlink itself, never what it points at.
    this.removeEntry('unlink', path, fs.unlinkSync);
  }

  /** One entry removed by `remove` at the path the layout allows, its failure as a HostIoError. */
  private removeEntry(op: 'rmdir' | 'unlink', path: string, remove: (real: string) => void): void {
    const real = changeTarget(this.layout, path, op);
    try {
      remove(real);
    } catch (e) {
      throw new HostIoError(op, path, errCode(e));
    }
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return this.runCommand(argv, options);
  }

  openReader(path: string): FileReader | undefined {
    let fd: number;
    try {
      fd = this.openForRead(path);
    } catch (e) {
      this.noteProblem(e, path);
      return undefined;
    }
    try {
      // Read again and again from offset 0 into one page: only a regular file (a sysfs attribute).
      if (!fs.fstatSync(fd).isFile())
        throw new ReadRefused('ENOTREG', `${path}: not a regular file; not read`);
    } catch (e) {
      fs.closeSync(fd);
      this.noteProblem(e, path);
      return undefined;
    }
    return new PageReader(fd);
  }

  /**
   * A `--root` tree read with this machine's own tools (`--exec direct`) is a copy or a fixture, not
   * the node: no socket is opened for it. A debug pod's `/host` with `--exec nsenter|chroot` is the
   * live node (`kubectl debug node` shares the node's network namespace), so it is probed.
   */
  connectTcp(address: string, port: number, timeoutMs: number): Promise<TcpConnectResult> {
    if (this.kind === 'root' && this.runnerConfig.mode === 'direct')
      return Promise.resolve({
        outcome: 'not-allowed',
        detail: `${this.root} is a --root tree, not a live node`,
        durationMs: 0,
      });
    return connectTcp(address, port, timeoutMs);
  }

  /**
   * `/dev/kmsg` under the root, when it is the kernel's character device: each read(2) returns one
   * record, EAGAIN once the buffer is drained (O_NONBLOCK: never waits for new ones), EPIPE when a
   * record was overwritten while reading (skipped). Only the newest `maxRecords` are kept.
   */
  readKernelLog(maxRecords: number): string[] | undefined {
    const file = `${this.root === '/' ? '' : this.root}/dev/kmsg`;
    let fd: number;
    try {
      if (!fs.lstatSync(file).isCharacterDevice()) return undefined;
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    } catch {
      return undefined;
    }
    const out: string[] = [];
    const buf = Buffer.alloc(8192);
    try {
      // The ring buffer holds a bounded number of records; the loop bound is a guard on top.
      for (let i = 0; i < 1_000_000; i++) {
        let n: number;
        try {
          n = fs.readSync(fd, buf, 0, buf.length, null);
        } catch (e) {
          if (errCode(e) === 'EPIPE') continue;
          break;
        }
        if (n <= 0) break;
        const rec = buf.toString('utf8', 0, n);
        const nl = rec.indexOf('\n');
        out.push(nl < 0 ? rec : rec.slice(0, nl));
        if (out.length > maxRecords) out.shift();
      }
    } finally {
      fs.closeSync(fd);
    }
    return out;
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
