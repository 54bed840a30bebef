/**
 * Writes a node_exporter textfile (`*.prom`): to a temporary file in the same directory (a rename
 * is atomic only within one filesystem), synced, mode 0644, then renamed over FILE, so the
 * collector never reads a partial file (node_exporter README "Textfile Collector"). The file is
 * the command's output, on the machine it runs on, like stdout: not a node path under --root.
 */
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../engine/errors.js';

export function writeTextfile(file: string, text: string): void {
  if (!file.endsWith('.prom'))
    throw new UserError(
      `--textfile ${file}: the textfile collector reads only *.prom files`,
      'name it like iscsi.prom',
    );
  const dir = dirname(file);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UserError(`--textfile ${file}: directory ${dir} does not exist`);
  // A dot name: node_exporter ignores it (not *.prom) while it is being written.
  const tmp = join(dir, `.${basename(file)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    try {
      fchmodSync(fd, 0o644); // whatever the umask
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
