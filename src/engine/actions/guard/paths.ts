/**
 * Every path a step writes, creates or removes stays inside the dirs that kind of step may touch,
 * resolved without following a symlink: kubelet's tree and the CSI drivers' metadata dirs for
 * files and dirs, the open-iscsi node DB for record files, sysfs for attributes. The resolution is
 * the Host-level `pathProblem` (src/engine/host/path-problem.ts), the same question the planners'
 * path guard asks before consent.
 */
import { type PathOp, pathProblem } from '../../host/path-problem.js';
import { normalizeKubeletRoot } from '../../kubelet/paths.js';
import { driverFileDirs } from '../../snapshot/csi/paths.js';
import { NODE_DB_DIRS } from '../../snapshot/iscsi-db.js';
import type { ResolvedEffect } from '../types.js';
import type { Invariant } from './types.js';

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
      return { op: 'write', path: e.path, allowed: ['/sys'] };
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
