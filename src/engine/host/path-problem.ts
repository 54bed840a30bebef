import type { Host } from './host.js';

/** What a step does to a path (the mount target is where a filesystem is mounted). */
export type PathOp = 'mkdir' | 'rmdir' | 'unlink' | 'write' | 'mount';

/** sysfs: attributes are reached through the kernel's own class and bus links, which are followed. */
const SYSFS = '/sys';

function isInside(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * Why `op` on `path` is not safe, or undefined when it is: the path must be absolute with no empty,
 * `.` or `..` component, lie strictly below one of the `allowed` dirs, and reach its entry without
 * a symbolic link below that dir — every directory on the way is lstat'ed through `host`, none may
 * be a link (kubelet's `iface-default/<vol>` pointing at /etc) or a file; the entry itself may not
 * be a link either (a write or a mount would follow it; an unlink or rmdir would act on a name
 * that is not what the plan says). What lies above an allowed dir is the node's layout, not
 * checked. Under `/sys` (an allowed `/sys`) the kernel's links are followed and only the attribute
 * itself is checked: a regular file, for a write.
 *
 * Pure but for lstat/readLink through the Host, so the planners (refusals before consent) and the
 * executor's per-step guard ask the same question of the same node. The Host's own change calls
 * refuse any link on the way as well (fs-mutate.ts): this names the problem before anything runs.
 */
export function pathProblem(
  host: Host,
  op: PathOp,
  path: string,
  allowed: readonly string[],
): string | undefined {
  if (!path.startsWith('/')) return `${path} is not an absolute path`;
  const parts = path.slice(1).split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..'))
    return `${path} has an empty, '.' or '..' component`;
  const base = allowed.filter((d) => isInside(path, d)).sort((a, b) => b.length - a.length)[0];
  if (base === undefined)
    return `${path} is not inside ${allowed.join(', ') || 'any dir this step may change'}`;
  const final = host.lstat(path);
  if (base === SYSFS || isInside(base, SYSFS)) {
    if (op !== 'write') return `${path}: only attributes are written under /sys`;
    return final === undefined || final === 'file'
      ? undefined
      : `${path} is not a sysfs attribute (${final})`;
  }
  let at = base.endsWith('/') ? base.slice(0, -1) : base;
  const below = path.slice(at.length + 1).split('/');
  for (let i = 0; i < below.length - 1; i++) {
    at += `/${below[i]}`;
    const kind = host.lstat(at);
    if (kind === undefined) return undefined;
    if (kind === 'symlink') return `${at} is a symbolic link: refusing to ${op} ${path} through it`;
    if (kind !== 'dir') return `${at} is not a directory: refusing to ${op} ${path} below it`;
  }
  if (final === 'symlink') return `${path} is a symbolic link: refusing to ${op} it`;
  if (op === 'write' && final !== undefined && final !== 'file')
    return `${path} is not a regular file: refusing to write it`;
  return undefined;
}
