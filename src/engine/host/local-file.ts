/**
 * The admin's own files (`--manifest`, `--secret`, the console's manifest prompt; a bundle it
 * writes): read and written where the console runs, not through the Host's root, but as carefully as a node's files — a path can name
 * /dev/zero, a FIFO nobody writes, or a huge file. Checked to be a regular file before it is opened
 * (opening a device can have effects of its own), opened non-blocking (a FIFO swapped in between
 * answers at once), and read with the Host's bounded reader (regular files only, capped).
 */
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors.js';
import { describeKind, readBounded } from './fs-host.js';
import type { ReadCap } from './read-caps.js';

/** The file's text; UserError (exit 2) naming the path and why it was not read. */
export function readAdminFile(path: string, cap: ReadCap): string {
  const fail = (why: string) =>
    new UserError(
      `cannot read ${cap.what} ${path}: ${why}`,
      `give the path of a ${cap.what} file (YAML or JSON)`,
    );
  let fd: number;
  try {
    const st = fs.statSync(path);
    if (!st.isFile()) throw fail(`${describeKind(st)}, not a regular file; not read`);
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw fail((e as NodeJS.ErrnoException).code ?? String(e));
  }
  try {
    return readBounded(fd, path, cap);
  } catch (e) {
    const refused = (e as { problem?: string }).problem;
    throw fail(refused ? refused.replace(`${path}: `, '') : ((e as NodeJS.ErrnoException).code ?? String(e)));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes a new file where the console runs (a support bundle): the bytes go to a temp file in the
 * same directory (created O_EXCL with `mode`, fchmod'ed whatever the umask, fsync'ed), which is then
 * hard-linked to `path` — link(2) fails with EEXIST, so an existing file (or a link planted at that
 * name) is never replaced — and the temp name removed. A reader sees no file or the whole file.
 * UserError (exit 2) naming the path and why; nothing is left behind on failure.
 */
export function writeNewAdminFile(path: string, data: Buffer, mode: number, what: string): void {
  const dir = dirname(path);
  const fail = (why: string) =>
    new UserError(`cannot write ${what} ${path}: ${why}`, 'give a new file name in an existing directory');
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    throw fail(`directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  if (!st.isDirectory()) throw fail(`${dir} is not a directory`);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  let fd: number;
  try {
    fd = fs.openSync(
      tmp,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      mode,
    );
  } catch (e) {
    throw fail((e as NodeJS.ErrnoException).code ?? String(e));
  }
  try {
    try {
      fs.fchmodSync(fd, mode);
      fs.writeSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(tmp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw fail(code === 'EEXIST' ? 'it exists already (not replaced)' : (code ?? String(e)));
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
