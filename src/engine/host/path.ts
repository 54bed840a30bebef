import { posix } from 'node:path';

/**
 * Joins a host path below a root directory: `under('/host', '/sys/block')` → `/host/sys/block`.
 * `..` can never climb out of the root (resolved against `/` first). Clean absolute paths take a
 * plain concatenation: this runs ~75,000 times per 1,000-session snapshot and path.join showed up
 * as ~8 % of snapshot time in the profile (bench/README.md).
 */
export function under(root: string, hostPath: string): string {
  const clean =
    hostPath.charCodeAt(0) === 47 && !hostPath.includes('/.') && !hostPath.includes('//')
      ? hostPath
      : posix.resolve('/', hostPath);
  if (root === '/' || root === '') return clean;
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  return clean === '/' ? base : base + clean;
}

/**
 * Resolves a relative symlink target against the directory of the link, as the kernel does
 * (lexically, as posix.normalize would). An absolute result is built as one flat string:
 * posix.normalize appends a component at a time, and V8 keeps such a result as a chain of ~15 small
 * strings; the watcher keeps one such path per disk and session for the console's lifetime
 * (~2 MB at 1,000 sessions × 4 LUNs, bench/README.md).
 */
export function resolveLink(linkPath: string, target: string): string {
  const dir = posix.dirname(linkPath);
  const joined = target.startsWith('/') ? target : target === '' ? dir : `${dir}/${target}`;
  if (joined.charCodeAt(0) !== 47) return posix.normalize(joined);
  const parts = [''];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 1) parts.pop();
    } else parts.push(part);
  }
  if (parts.length === 1) return '/';
  // posix.normalize keeps a trailing slash.
  if (joined.charCodeAt(joined.length - 1) === 47) parts.push('');
  return parts.join('/');
}

export const basename = posix.basename;
export const dirname = posix.dirname;
