import * as fs from 'node:fs';
import { HostIoError } from './host.js';

/**
 * The file changes of FsHost (fs-host.ts), one rule for all of them, on `/` as under a `--root`:
 * a change never goes through a symbolic link below the node's layout (LAYOUT_DEPTH). Every
 * directory component there is lstat'ed and must be a real directory; the final component is
 * opened O_NOFOLLOW (or is renamed over, unlinked, rmdir'ed: calls that never follow it). A link planted anywhere on the
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
 * How many leading components of a path are the node's own layout: links there are followed (by
 * the kernel on `/`, inside the root under a `--root`), because that is where a node's setup puts
 * them — `/var/run` → `/run`, `/var/lib/kubelet` → `/data/kubelet` on a data disk — and only root's
 * system setup writes there. Every dir the console changes things in lies deeper (kubelet's plugin
 * and pod dirs, the node DB's record dirs, the state dir's files), where a driver, a pod's hostPath
 * volume or a crafted name could plant a link: below this depth no link is followed.
 */
const LAYOUT_DEPTH = 3;

/**
 * Where a host directory of at most LAYOUT_DEPTH components really is, its links followed (inside
 * the root under a `--root`); undefined when it does not exist. Throws an errno-coded error.
 */
export type LayoutDir = (hostDir: string) => string | undefined;

/** The components of an absolute host path; `.`, `..` or none at all is EINVAL (never normalised away). */
function components(path: string, op: string): string[] {
  if (!path.startsWith('/')) throw new HostIoError(op, path, 'EINVAL', 'not an absolute path');
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.length === 0 || parts.some((p) => p === '.' || p === '..'))
    throw new HostIoError(op, path, 'EINVAL', "'.' or '..' component, or no name");
  return parts;
}

function linkRefused(op: string, path: string, at: string): HostIoError {
  return new HostIoError(op, path, 'ELOOP', `${at} is a symbolic link; a change never goes through one`);
}

/** `layout(dir)` with its failure as the operation's HostIoError (ENOENT when it is missing). */
function layoutOf(layout: LayoutDir, dir: string, op: string, path: string): string | undefined {
  try {
    return layout(dir);
  } catch (e) {
    throw new HostIoError(op, path, codeOf(e));
  }
}

/**
 * Where the entry `path` names really is: its first LAYOUT_DEPTH directories resolved by `layout`,
 * every directory below lstat'ed and required to be a real directory. Throws HostIoError: ELOOP for
 * a link below the layout, ENOTDIR for a file on the way, ENOENT for a missing directory (never a
 * literal path through a link the walk did not look at).
 */
export function changeTarget(layout: LayoutDir, path: string, op: string): string {
  const parts = components(path, op);
  const k = Math.min(LAYOUT_DEPTH, parts.length - 1);
  let real = layoutOf(layout, `/${parts.slice(0, k).join('/')}`, op, path);
  if (real === undefined) throw new HostIoError(op, path, 'ENOENT');
  let shown = k === 0 ? '' : `/${parts.slice(0, k).join('/')}`;
  for (let i = k; i < parts.length - 1; i++) {
    real += `/${parts[i]}`;
    shown += `/${parts[i]}`;
    const st = lstatAt(real, op, path);
    if (st === undefined) throw new HostIoError(op, path, 'ENOENT');
    if (st.isSymbolicLink()) throw linkRefused(op, path, shown);
    if (!st.isDirectory()) throw new HostIoError(op, path, 'ENOTDIR');
  }
  return `${real === '/' ? '' : real}/${parts[parts.length - 1]}`;
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
 * mkdir -p: the first LAYOUT_DEPTH components as the node's layout (`layout`), each missing one made
 * in its parent; below, each existing component must be a real directory and each missing one is
 * made with `mode`. A link below the layout, the last component included (a mount onto it would
 * follow it), is ELOOP.
 */
export function mkdirNoLinks(layout: LayoutDir, path: string, mode: number): void {
  const parts = components(path, 'mkdir');
  let real = layoutOf(layout, '/', 'mkdir', path) as string;
  let shown = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    shown += `/${part}`;
    const inLayout = i < LAYOUT_DEPTH;
    const there = inLayout ? layoutOf(layout, shown, 'mkdir', path) : undefined;
    const next = there ?? `${real === '/' ? '' : real}/${part}`;
    const st = lstatAt(next, 'mkdir', path);
    if (st?.isSymbolicLink() && !inLayout) throw linkRefused('mkdir', path, shown);
    if (there !== undefined || st?.isDirectory()) {
      real = next;
      continue;
    }
    if (st !== undefined) throw new HostIoError('mkdir', path, st.isFile() ? 'EEXIST' : 'ENOTDIR');
    try {
      fs.mkdirSync(next, { mode });
    } catch (e) {
      // Made by someone else between the lstat and the mkdir: fine when it is a real directory.
      if (codeOf(e) !== 'EEXIST' || !lstatAt(next, 'mkdir', path)?.isDirectory())
        throw new HostIoError('mkdir', path, codeOf(e));
    }
    real = next;
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
