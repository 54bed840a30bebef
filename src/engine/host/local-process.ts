/**
 * The console's own machine, as opposed to the node a Host reads: who runs this process, and
 * whether a process on this machine still runs. Locks record the pids of the console and of a
 * plan's running commands, and those are processes here whatever the Host is (a `--root` tree and
 * the simulator run their commands on this machine too), so these facts are read from this
 * machine's `/proc` and signals, never through a Host's root. The engine asks here instead of
 * importing node:fs or node:os itself (docs/architecture.md#exceptions).
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

/** A process on this machine: its pid and start time (what tells a reused pid apart). */
export interface LocalProcess {
  pid: number;
  /** Process start time (clock ticks since boot, /proc/<pid>/stat field 22). */
  start?: string;
}

/** Fields of /proc/<pid>/stat after comm (state is [0], start time [19]), or undefined (non-Linux, gone). */
function statFields(pid: number): string[] | undefined {
  try {
    // A stat line is well under 1 KiB; procfs files are not regular files an admin could grow.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may contain spaces and parens: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Start time of a local process, or undefined (non-Linux, gone). */
export function processStart(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** This process, with its start time when /proc has it. */
export function ownProcess(): LocalProcess {
  const start = processStart(process.pid);
  return { pid: process.pid, ...(start ? { start } : {}) };
}

/**
 * Running: signal 0 reaches it, it is not a zombie (an orphaned step's child that ended is a
 * zombie until PID 1 reaps it, and a container's PID 1 may never), and its start time is the
 * recorded one (proc(5): /proc/<pid>/stat fields 3 and 22).
 */
export function isProcessRunning(p: LocalProcess): boolean {
  try {
    process.kill(p.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(p.pid);
  if (fields?.[0] === 'Z') return false;
  const start = fields?.[19];
  return p.start === undefined || start === undefined || start === p.start;
}

/** The uid this process runs as, or undefined where there is none (non-POSIX). */
export function ownUid(): number | undefined {
  return process.getuid?.();
}

/** Who runs this process: uid, user name, and the admin behind `sudo` (for the journal). */
export function localUser(): { uid?: number; user?: string; sudoUser?: string } {
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER;
  }
  const uid = ownUid();
  return {
    ...(uid !== undefined ? { uid } : {}),
    ...(user ? { user } : {}),
    ...(process.env.SUDO_USER ? { sudoUser: process.env.SUDO_USER } : {}),
  };
}
