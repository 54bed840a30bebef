import type { Host } from '../host/host.js';

/** Running processes by command name (`/proc/<pid>/comm`), read once per doctor run. */
export interface ProcessTable {
  /** Pids whose comm is exactly `name`, ascending. */
  pids(name: string): number[];
  /** The NUL-separated argv of a process, or undefined when it is gone or unreadable. */
  cmdline(pid: number): string[] | undefined;
}

/**
 * Scans `/proc/<pid>/comm` through the Host. comm is the kernel's 15-character task name
 * (TASK_COMM_LEN 16), so names are compared exactly as the kernel truncates them.
 */
export function readProcessTable(host: Host): ProcessTable {
  const byName = new Map<string, number[]>();
  const pids = host
    .readDir('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    const comm = host.readText(`/proc/${pid}/comm`)?.trim();
    if (!comm) continue; // exited between readdir and read
    const list = byName.get(comm) ?? [];
    list.push(pid);
    byName.set(comm, list);
  }
  return {
    pids: (name) => byName.get(name.slice(0, 15)) ?? [],
    cmdline(pid) {
      const raw = host.readText(`/proc/${pid}/cmdline`);
      if (raw === undefined) return undefined;
      return raw.split('\0').filter((a) => a.length > 0);
    },
  };
}
