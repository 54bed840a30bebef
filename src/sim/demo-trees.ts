/**
 * The `--demo` trees' lifecycle across processes. A simulated node is a temporary directory
 * (`iscsi-console-sim-*`, up to a few hundred MB of tmpfs in /dev/shm) that `close()` removes; a
 * process killed with SIGKILL (or a crash the runtime cannot catch) leaves it behind. Each tree
 * names its owner in `owner` (pid and the process's start time, so a reused pid is not taken for
 * the owner), and every demo start removes the trees whose owner is gone. A tree whose owner is
 * alive, cannot be judged (no owner file yet: being created; another user's; unreadable) or is not
 * a plain directory is never touched.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { removeTree } from './tree.js';

/** The name every demo tree starts with (mkdtemp adds six characters). */
export const DEMO_TREE_PREFIX = 'iscsi-console-sim-';
const OWNER_FILE = 'owner';
/** An owner file is a line of two numbers: more than this is not one of ours. */
const OWNER_MAX_BYTES = 64;

/** Start time of a process in clock ticks since boot (/proc/PID/stat field 22), when readable. */
function startTicks(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields count after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19];
  } catch {
    return undefined;
  }
}

/** Writes the owner file of a tree this process created (before anything else goes into it). */
export function claimTree(dir: string, pid = process.pid): void {
  fs.writeFileSync(join(dir, OWNER_FILE), `${pid} ${startTicks(pid) ?? '?'}\n`, { mode: 0o600 });
}

/** Is the owner named in `text` still running? undefined: the text names no owner. */
function ownerAlive(text: string): boolean | undefined {
  const m = /^(\d{1,10}) (\d{1,20}|\?)\n?$/.exec(text);
  if (!m) return undefined;
  const pid = Number(m[1]);
  if (pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: a process of another user has that pid: alive, whoever it is.
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  const now = startTicks(pid);
  // The pid runs, but a process started at another time: the owner is gone and its pid reused.
  return m[2] === '?' || now === undefined || now === m[2];
}

/** Reads an owner file without following a link and without reading more than a line. */
function readOwner(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > OWNER_MAX_BYTES) return undefined;
    const buf = Buffer.alloc(OWNER_MAX_BYTES);
    const n = fs.readSync(fd, buf, 0, OWNER_MAX_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Removes the demo trees in `parent` left by processes that are gone (SIGKILL, power cut of a
 * container); returns their names. Only this user's plain directories with a readable owner file
 * naming a dead process are removed.
 */
export function sweepStaleTrees(parent: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(DEMO_TREE_PREFIX)) continue;
    const dir = join(parent, name);
    try {
      const st = fs.lstatSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      const owner = readOwner(join(dir, OWNER_FILE));
      if (owner === undefined || ownerAlive(owner) !== false) continue;
      removeTree(dir);
      removed.push(name);
    } catch {
      // Removed meanwhile by its owner or another sweep, or not ours to judge: next one.
    }
  }
  return removed;
}
