import { UserError } from '../errors.js';
import type { Host } from './host.js';

/**
 * What every node's root has: the kernel's sysfs at /sys and procfs at /proc, neither ever empty
 * (sysfs always has block/, bus/, class/, devices/; procfs always has PID 1). A `--root` without them
 * is not a node — a mistyped path in a debug pod or DaemonSet — and must not read as a healthy node
 * with no sessions.
 */
const NODE_DIRS = ['/sys', '/proc'] as const;

/** The node dirs missing or unreadable under the Host's root (empty when it looks like a node). */
function missingNodeDirs(host: Host): string[] {
  return NODE_DIRS.filter((d) => host.stat(d) !== 'dir' || host.readDir(d).length === 0);
}

/**
 * Refuses a `--root` that is not a node's root (exit 2, usage or environment). A real node with no
 * iSCSI modules passes: its /sys and /proc are there; the missing iscsi classes are a finding.
 */
export function assertNodeRoot(host: Host): void {
  if (host.kind !== 'root') return;
  const missing = missingNodeDirs(host);
  if (missing.length === 0) return;
  throw new UserError(
    `--root ${host.root} is not a node's root: no readable ${missing.map((d) => `${host.root.replace(/\/+$/, '')}${d}`).join(' or ')}`,
    "point --root at the host's root filesystem with its /sys and /proc (a debug pod's /host, kubectl debug node mounts it there)",
  );
}
