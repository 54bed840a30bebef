import * as fs from 'node:fs';

/**
 * Path resolution inside a root with the semantics of a chroot — what the kernel's openat2(2)
 * `RESOLVE_IN_ROOT` does (https://man7.org/linux/man-pages/man2/openat2.2.html): every component is
 * looked up under the root, an absolute symlink target starts again at the root, `..` at the root
 * stays at the root, and more than 40 symlinks in one resolution is ELOOP (MAXSYMLINKS,
 * include/linux/namei.h in the kernel). Node has no openat2 binding, so the walk is done here with
 * lstat/readlink on `<root>/<canonical>`, where every prefix of a canonical path has been seen to be
 * a real directory (no symlink) — the kernel then has nothing left to follow but the final component,
 * which callers open with O_NOFOLLOW.
 *
 * Resolved directories are cached by the path they were asked as, until `clear()` (the Host clears
 * it at the start of every snapshot): a 1,000-session snapshot asks for ~20,000 distinct directories
 * and ~75,000 paths inside them, so each directory costs one lstat once, not once per file.
 *
 * The walk and the final open are separate system calls, so a tree that changes between them (a
 * directory swapped for a symlink in that window) is not covered: this confines what a node's files
 * say, not a concurrent attacker racing the console.
 */

/** A resolution failure with the errno the kernel would give (ENOENT, ENOTDIR, ELOOP, EACCES…). */
export class ResolveError extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'ResolveError';
  }
}

/** MAXSYMLINKS in include/linux/namei.h: the kernel's limit of symlinks followed in one lookup. */
export const MAX_SYMLINK_HOPS = 40;

export type ResolvedKind = 'dir' | 'file' | 'symlink' | 'other' | 'absent';

export interface Resolved {
  /** Canonical host path: no symlink in any prefix, no `.`/`..`/empty component. */
  path: string;
  /** What is there: `symlink` only when the final component was not followed; `absent` when missing. */
  kind: ResolvedKind;
}

/** Splits a host path into its parent (as written) and last component; no parent for `/`. */
export function splitHostPath(path: string): { parent: string | undefined; name: string } {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  const p = end === path.length ? path : path.slice(0, end);
  if (p === '/' || p === '') return { parent: undefined, name: '' };
  const i = p.lastIndexOf('/');
  if (i < 0) return { parent: '/', name: p };
  return { parent: i === 0 ? '/' : p.slice(0, i), name: p.slice(i + 1) };
}

function parentOf(canonical: string): string {
  const i = canonical.lastIndexOf('/');
  return i <= 0 ? '/' : canonical.slice(0, i);
}

function child(canonical: string, name: string): string {
  return canonical === '/' ? `/${name}` : `${canonical}/${name}`;
}

function kindOf(st: fs.Stats): ResolvedKind {
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

function codeOf(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? 'EIO';
}

export class RootResolver {
  private readonly dirs = new Map<string, string>();
  private hops = 0;
  /**
   * `root` is the directory host paths live under, without a trailing slash (never `/`). `trace`
   * sees every lstat/readlink the walk makes (the bench's floor replays them as bare syscalls).
   */
  constructor(
    readonly root: string,
    private readonly trace?: (op: 'lstat' | 'readlink', real: string) => void,
  ) {}

  /** The directory of the last `entry` call, as asked and as its real path (see `entry`). */
  private lastDir = '';
  private lastReal = '';

  /** Forgets every resolved directory (the tree may have changed). */
  clear(): void {
    this.dirs.clear();
    this.lastDir = '';
    this.lastReal = '';
  }

  /**
   * The real path of the entry `path` names, its directory resolved inside the root and its final
   * component not followed (callers open it O_NOFOLLOW); undefined when the final component is `.`,
   * `..` or empty. The engine reads a dozen attributes of one directory in a row: the last directory
   * is kept, so those skip the cache lookup (profiled: hashing ~100-char paths for a Map lookup per
   * read was the largest cost of confinement).
   */
  entry(path: string): string | undefined {
    const ld = this.lastDir;
    const n = ld.length;
    if (
      n > 0 &&
      path.length > n + 1 &&
      path.charCodeAt(n) === 47 &&
      path.charCodeAt(n + 1) !== 46 &&
      path.startsWith(ld) &&
      path.indexOf('/', n + 1) === -1
    ) {
      return `${this.lastReal}/${path.slice(n + 1)}`;
    }
    const { parent, name } = splitHostPath(path);
    if (parent === undefined || name === '' || name === '.' || name === '..') return undefined;
    const dir = this.dir(parent);
    const real = this.real(dir);
    if (parent.length > 1 && parent.charCodeAt(parent.length - 1) !== 47) {
      this.lastDir = parent;
      this.lastReal = real;
    }
    return `${real}/${name}`;
  }

  /** Where a canonical host path really is. */
  real(canonical: string): string {
    return canonical === '/' ? this.root : this.root + canonical;
  }

  /** Canonical host path of the directory `path` names (symlinks followed inside the root). */
  dir(path: string): string {
    this.hops = 0;
    return this.dirAt(path);
  }

  /**
   * Resolves `path`; its final component is followed when it is a symlink and `follow` is set.
   * Throws ResolveError when a directory on the way is missing, not a directory, or a loop.
   */
  resolve(path: string, follow: boolean): Resolved {
    this.hops = 0;
    return this.final(path, follow);
  }

  /** The parent's canonical dir and the last component of `path` (for calls that must not follow it). */
  parentAndName(path: string): { dir: string; name: string } {
    const { parent, name } = splitHostPath(path);
    if (parent === undefined) return { dir: '/', name: '' };
    return { dir: this.dir(parent), name };
  }

  private dirAt(path: string): string {
    const hit = this.dirs.get(path);
    if (hit !== undefined) return hit;
    const { parent, name } = splitHostPath(path);
    if (parent === undefined) return '/';
    const r = this.step(this.dirAt(parent), name, true);
    if (r.kind === 'absent') throw new ResolveError('ENOENT');
    if (r.kind !== 'dir') throw new ResolveError('ENOTDIR');
    this.dirs.set(path, r.path);
    // The canonical form too: a relative link inside it (`../../x`) is then resolved from the cache.
    if (r.path !== path) this.dirs.set(r.path, r.path);
    return r.path;
  }

  private final(path: string, follow: boolean): Resolved {
    const { parent, name } = splitHostPath(path);
    if (parent === undefined) return { path: '/', kind: 'dir' };
    return this.step(this.dirAt(parent), name, follow);
  }

  /** One component below the canonical directory `dir`. */
  private step(dir: string, name: string, follow: boolean): Resolved {
    if (name === '' || name === '.') return { path: dir, kind: 'dir' };
    if (name === '..') return { path: parentOf(dir), kind: 'dir' };
    const candidate = child(dir, name);
    const real = this.real(candidate);
    let st: fs.Stats | undefined;
    this.trace?.('lstat', real);
    try {
      st = fs.lstatSync(real, { throwIfNoEntry: false });
    } catch (e) {
      throw new ResolveError(codeOf(e));
    }
    if (!st) return { path: candidate, kind: 'absent' };
    if (!st.isSymbolicLink() || !follow) return { path: candidate, kind: kindOf(st) };
    if (++this.hops > MAX_SYMLINK_HOPS) throw new ResolveError('ELOOP');
    let target: string;
    this.trace?.('readlink', real);
    try {
      target = fs.readlinkSync(real);
    } catch (e) {
      throw new ResolveError(codeOf(e));
    }
    if (target === '') throw new ResolveError('ENOENT');
    // An absolute target starts again at the root (re-rooted); a relative one below the link's dir.
    return this.final(target.charCodeAt(0) === 47 ? target : child(dir, target), true);
  }
}
