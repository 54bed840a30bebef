/**
 * The admin's own files (`--manifest`, `--secret`, the console's manifest prompt): read where the
 * console runs, not through the Host's root, but as carefully as a node's files — a path can name
 * /dev/zero, a FIFO nobody writes, or a huge file. Checked to be a regular file before it is opened
 * (opening a device can have effects of its own), opened non-blocking (a FIFO swapped in between
 * answers at once), and read with the Host's bounded reader (regular files only, capped).
 */
import * as fs from 'node:fs';
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
