/**
 * Whether iscsid runs: a fact of the node every read carries (Snapshot.iscsid), because without it
 * no down session is logged back in and every iscsiadm login, logout, discovery and rescan fails
 * (exit 20, "could not connect to iscsid": open-iscsi usr/iscsid_req.c). The problems rule names it
 * and the planners and the executor's guard refuse the steps that need it.
 *
 * Cheap first: iscsid's pid file and that pid's comm (two reads); only when that does not find it,
 * the process table and PID 1's socket (systemd's iscsid.socket starts iscsid on the first
 * iscsiadm call, so a node with only the socket is not "down").
 */
import type { Host } from '../host/host.js';
import type { IscsidState } from '../model.js';
import { readProcessTable } from './processes.js';

/**
 * The abstract unix socket iscsiadm uses to reach iscsid (open-iscsi usr/iscsid_req.c,
 * ISCSIADM_NAMESPACE); systemd's iscsid.socket listens on the same name. Abstract sockets belong to
 * a network namespace, so it is looked up in the listener's own /proc/<pid>/net/unix.
 */
export const ISCSID_ABSTRACT_SOCKET = '@ISCSIADM_ABSTRACT_NAMESPACE';
export const ISCSID_PID_FILE = '/run/iscsid.pid';

/** Whether a process's network namespace has iscsid's socket; undefined when its table is unreadable. */
export function hasIscsidSocket(host: Host, pid: number): boolean | undefined {
  const table = host.readText(`/proc/${pid}/net/unix`);
  if (table === undefined) return undefined;
  return table.split('\n').some((l) => l.trimEnd().endsWith(` ${ISCSID_ABSTRACT_SOCKET}`));
}

/**
 * The cheap half of the question (two reads): iscsid's pid file names a live iscsid. The watcher asks
 * it on every poll and re-reads the node when the answer flips, so `Snapshot.iscsid` follows iscsid
 * within a poll (the console's status bar shows that fact).
 */
export function iscsidPidAlive(host: Host): boolean {
  const pid = Number(host.readText(ISCSID_PID_FILE)?.trim());
  return Number.isInteger(pid) && pid > 0 && host.readText(`/proc/${pid}/comm`)?.trim() === 'iscsid';
}

/**
 * iscsid's state on the node this Host reads, or undefined when it cannot tell: a tree with no
 * process table (a fixture `--root` whose /proc holds only mountinfo, or /proc not mounted). A debug pod's `--root /host` has the
 * host's /proc under it, so it reads the node's iscsid, as `doctor` there does.
 */
export function readIscsidState(host: Host): IscsidState | undefined {
  if (iscsidPidAlive(host)) return 'running';
  // A live process table always has PID 1's comm; a fixture tree's /proc (mountinfo only) has not.
  if (host.readText('/proc/1/comm') === undefined) return undefined;
  if (readProcessTable(host).pids('iscsid').length > 0) return 'running';
  return hasIscsidSocket(host, 1) === true ? 'socket-activated' : 'down';
}
