import { posix } from 'node:path';

/** Joins a host path below a root directory: `under('/host', '/sys/block')` → `/host/sys/block`. */
export function under(root: string, hostPath: string): string {
  if (root === '/' || root === '') return hostPath;
  return posix.join(root, hostPath);
}

/** Resolves a relative symlink target against the directory of the link, as the kernel does. */
export function resolveLink(linkPath: string, target: string): string {
  return target.startsWith('/')
    ? posix.normalize(target)
    : posix.normalize(posix.join(posix.dirname(linkPath), target));
}

export const join = posix.join;
export const basename = posix.basename;
export const dirname = posix.dirname;
