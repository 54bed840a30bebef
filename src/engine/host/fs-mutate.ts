import * as fs from 'node:fs';
import { HostIoError } from './host.js';

/**
 * The file changes of FsHost (fs-host.ts), one rule for all of them, on `/` as under a `--root`:
 * a change never goes through a symbolic link. Every directory component of the path is lstat'ed
 * from the root down and must be a real directory; the final component is opened O_NOFOLLOW (or
 * is renamed over, unlinked, rmdir'ed: calls that never follow it). A link planted anywhere on the
 * way (a kubelet volume dir pointing at /etc) is refused with ELOOP instead of being followed, so
 * no write, mkdir, unlink or rmdir lands outside the tree its path names. /sys is not walked here:
 * sysfs attributes are reached through the kernel's own class links (fs-host.ts writeText).
 *
 * The walk and the call are separate system calls: this stops what a node's files say, not a
 * concurrent attacker racing the console (the same limit as confine.ts).
 */

/** write(2) of part of a buffer: how many bytes it took. FsHost's is fs.writeSync; faults replace it. */
export type WriteBytes = (path: string, fd: number, buf: Buffer, off: number, len: number) => number;

function codeOf(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? 'EIO';
}

/**
 * The FHS compatibility links every distribution has (`/var/run` → `/run`, `/var/lock` →
 * `/run/lock`; FHS 3.0 §5.9, §5.13): a path through one is taken as the path it names, rewritten
 * lexically so that under a `--root` it stays inside the root (the link's target is absolute).
 */
const COMPAT_LINKS: readonly [string, string][] = [
  ['/var/run/', '/run/'],
  ['/var/lock/', '/run/lock/'],
];

function throughCompatLink(base: string, path: string): string {
  for (const [from, to] of COMPAT_LINKS) {
    if (!path.startsWith(from)) continue;
    const link = `${base}${from.slice(0, -1)}`;
    if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) return to + path.slice(from.length);
  }
  return path;
}

/** The components of an absolute host path; `.`, `..` or none at all is EINVAL (never normalised away). */
function components(base: string, hostPath: string, op: string): string[] {
  const path = throughCompatLink(base, hostPath);
  if (!path.startsWith('/')) throw new HostIoError(op, path, 'EINVAL', 'not an absolute path');
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.length === 0 || parts.some((p) => p === '.' || p === '..'))
    throw new HostIoError(op, path, 'EINVAL', "'.' or '..' component, or no name");
  return parts;
}

function linkRefused(op: string, path: string, at: string): HostIoError {
  return new HostIoError(op, path, 'ELOOP', `${at} is a symbolic link; a change never goes through one`);
}

/**
 * Where the entry `path` names is under `base` (`''` for `/`), after checking that every directory
 * on the way exists as a real directory or is missing (then the call itself answers ENOENT).
 * Throws HostIoError: ELOOP for a symlink on the way, ENOTDIR for a file on the way.
 */
export function changeTarget(base: string, path: string, op: string): string {
  const parts = components(base, path, op);
  let real = base;
  let shown = '';
  for (let i = 0; i < parts.length - 1; i++) {
    real += `/${parts[i]}`;
    shown += `/${parts[i]}`;
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(real, { throwIfNoEntry: false });
    } catch (e) {
      throw new HostIoError(op, path, codeOf(e));
    }
    if (st === undefined) break;
    if (st.isSymbolicLink()) throw linkRefused(op, path, shown);
    if (!st.isDirectory()) throw new HostIoError(op, path, 'ENOTDIR');
  }
  return `${base}/${parts.join('/')}`;
}

/** What is at `real` itself (a final link not followed), or undefined when absent. */
function lstatAt(real: string, op: string, path: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(real, { throwIfNoEntry: false });
  } catch (e) {
    throw new HostIoError(op, path, codeOf(e));
  }
}

/**
 * mkdir -p without following links: each component that exists must be a real directory, each
 * missing one is made with `mode` in its parent. A link anywhere, the last component included
 * (a mount onto it would follow it), is ELOOP.
 */
export function mkdirNoLinks(base: string, path: string, mode: number): void {
  const parts = components(base, path, 'mkdir');
  let real = base;
  let shown = '';
  for (const part of parts) {
    real += `/${part}`;
    shown += `/${part}`;
    const st = lstatAt(real, 'mkdir', path);
    if (st?.isSymbolicLink()) throw linkRefused('mkdir', path, shown);
    if (st?.isDirectory()) continue;
    if (st !== undefined) throw new HostIoError('mkdir', path, st.isFile() ? 'EEXIST' : 'ENOTDIR');
    try {
      fs.mkdirSync(real, { mode });
    } catch (e) {
      // Made by someone else between the lstat and the mkdir: fine when it is a real directory.
      if (codeOf(e) !== 'EEXIST' || !lstatAt(real, 'mkdir', path)?.isDirectory())
        throw new HostIoError('mkdir', path, codeOf(e));
    }
  }
}

/** The final component of a change that writes a file: a link or anything but a regular file is refused. */
export function checkWritable(real: string, path: string, op: string): void {
  const st = lstatAt(real, op, path);
  if (st === undefined || st.isFile()) return;
  if (st.isSymbolicLink()) throw linkRefused(op, path, path);
  throw new HostIoError(op, path, st.isDirectory() ? 'EISDIR' : 'ENOTREG', 'not a regular file');
}

/** All of `buf` through `write`, however many calls it takes; its error (ENOSPC) is thrown as is. */
export function writeAll(write: WriteBytes, path: string, fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) {
    const n = write(path, fd, buf, off, buf.length - off);
    // write(2) returning 0 for a regular file means no room: the kernel says ENOSPC on the next call.
    if (n <= 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    off += n;
  }
}

let tempSeq = 0;

/**
 * Writes `data` whole into a new `<real>.<pid>.<n>.tmp` in the same directory (O_EXCL, O_NOFOLLOW),
 * sets and checks `mode` (fchmod, then fstat: the umask or a filesystem that ignores modes cannot
 * leave a secret readable), fsyncs it and returns its path; removes it on any failure.
 */
export function writeTemp(
  write: WriteBytes,
  real: string,
  path: string,
  data: string,
  op: string,
  mode: number,
): string {
  tempSeq += 1;
  const temp = `${real}.${process.pid}.${tempSeq}.tmp`;
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600 & mode);
    writeAll(write, path, fd, Buffer.from(data, 'utf8'));
    fs.fchmodSync(fd, mode);
    const st = fs.fstatSync(fd);
    if ((st.mode & 0o7777) !== mode)
      throw new HostIoError(
        op,
        path,
        'EPERM',
        `mode ${(st.mode & 0o7777).toString(8)}, not ${mode.toString(8)}`,
      );
    fs.fsyncSync(fd);
    return temp;
  } catch (e) {
    if (fd !== undefined) fs.rmSync(temp, { force: true });
    throw e instanceof HostIoError ? e : new HostIoError(op, path, codeOf(e));
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Replaces the file at `real` with `data` atomically: a temp file in the same directory written
 * whole, mode set and checked, fsync'ed, then rename(2)d over the old one and the directory fsync'ed.
 * A reader sees the old bytes or the new ones, never a part: a full disk fails the temp file, and
 * the old file is left as it was, nothing else behind.
 */
export function replaceAtomic(
  write: WriteBytes,
  real: string,
  path: string,
  data: string,
  mode: number,
): void {
  checkWritable(real, path, 'replace');
  const temp = writeTemp(write, real, path, data, 'replace', mode);
  try {
    fs.renameSync(temp, real);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw new HostIoError('replace', path, codeOf(e));
  }
  syncDir(real);
}

/** fsync(2) of the directory holding `real`, so the rename itself is on disk; best effort. */
function syncDir(real: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(
      real.slice(0, real.lastIndexOf('/')) || '/',
      fs.constants.O_RDONLY | fs.constants.O_DIRECTORY,
    );
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory (EINVAL): the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
