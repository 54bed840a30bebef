/**
 * Every path a step writes, creates or removes stays inside the dirs that kind of step may touch,
 * resolved without following a symlink: kubelet's tree and the CSI drivers' metadata dirs for
 * files and dirs, the open-iscsi node DB for record files, sysfs for attributes.
 *
 * `pathProblem` is the slot for the Host-level no-follow resolution: a pure function of the Host,
 * the operation, the path and the allowed dirs. This version checks the string (absolute, no
 * empty/`.`/`..` component, inside an allowed dir) and lstat's every component below the allowed
 * dir through the Host (a symlink anywhere is refused). sysfs is checked by string only: its
 * class dirs are symlinks by design.
 */
import type { Host } from '../../host/host.js';
import { normalizeKubeletRoot } from '../../kubelet/paths.js';
import { driverFileDirs } from '../../snapshot/csi/paths.js';
import type { ResolvedEffect } from '../types.js';
import type { Invariant } from './types.js';

export type PathOp = 'write' | 'mkdir' | 'rmdir' | 'unlink' | 'sysfs-write';

/** open-iscsi's node DB (Debian/Ubuntu and RHEL keep it in /etc/iscsi; some builds in /var/lib/iscsi). */
export const NODE_DB_DIRS = ['/etc/iscsi', '/var/lib/iscsi'] as const;
export const SYSFS_DIR = '/sys';

/** What is wrong with touching `path` with `op`, or undefined. Pure but for lstat through the Host. */
export function pathProblem(
  host: Pick<Host, 'lstat'>,
  op: PathOp,
  path: string,
  allowed: readonly string[],
): string | undefined {
  if (!path.startsWith('/')) return `${path} is not an absolute path`;
  const parts = path.slice(1).split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0')))
    return `${path} has an empty, '.' or '..' component`;
  const dir = allowed.find((d) => path.startsWith(`${d}/`));
  if (dir === undefined) return `${path} is outside the dirs this step may touch (${allowed.join(', ')})`;
  if (op === 'sysfs-write') return undefined;
  const below = path.slice(dir.length + 1).split('/');
  let at = dir;
  for (let i = 0; i < below.length; i++) {
    at = `${at}/${below[i]}`;
    const kind = host.lstat(at);
    if (kind === undefined) return undefined;
    if (kind === 'symlink') return `${at} is a symbolic link: it is never followed`;
    if (i < below.length - 1 && kind !== 'dir') return `${at} is not a directory`;
  }
  return undefined;
}

/** The op and allowed dirs of an effect that names a path; undefined for the others. */
function pathOf(
  e: ResolvedEffect,
  kubeletRoot: string,
): { op: PathOp; path: string; allowed: string[] } | undefined {
  const files = [normalizeKubeletRoot(kubeletRoot), ...driverFileDirs(kubeletRoot)];
  switch (e.kind) {
    case 'mkdir':
    case 'rmdir':
    case 'unlink':
      return { op: e.kind, path: e.path, allowed: files };
    case 'write-file':
      return { op: 'write', path: e.path, allowed: [...files, ...NODE_DB_DIRS] };
    case 'scan':
    case 'remove-device':
    case 'device-state':
      return { op: 'sysfs-write', path: e.path, allowed: [SYSFS_DIR] };
    default:
      return undefined;
  }
}

export const pathInvariant: Invariant = {
  id: 'path',
  rule: 'Every path written, created or removed is resolved without following symlinks, inside the dirs that step may touch (kubelet and CSI driver dirs, the node DB, sysfs attributes).',
  check(e, g) {
    const p = pathOf(e, g.kubeletRoot);
    if (!p) return undefined;
    const problem = pathProblem(g.host, p.op, p.path, p.allowed);
    return problem ? { object: p.path, reason: problem } : undefined;
  },
};
