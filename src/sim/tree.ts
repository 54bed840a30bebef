import * as fs from 'node:fs';

/**
 * Writes the simulated node as real files and relative symlinks under a root directory, so the
 * engine reads it through the same fs code as a `--root` fixture. Every method takes a HOST path.
 */
export class Tree {
  /** Bumped on every removal: kept-open readers re-check that their file still exists only then. */
  removals = 0;

  constructor(readonly root: string) {}

  /** Absolute path of a host path inside the tree. */
  at(hostPath: string): string {
    return this.root + hostPath;
  }

  dir(hostPath: string): void {
    fs.mkdirSync(this.at(hostPath), { recursive: true });
  }

  /** mkdir of one level whose parent exists (one syscall; EEXIST is fine). */
  mkdir1(hostPath: string): void {
    try {
      fs.mkdirSync(this.at(hostPath));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }

  /** Creates or replaces a file (parents must exist unless `parents` is set). */
  file(hostPath: string, content: string, mode = 0o644): void {
    // writeFileSync's semantics (O_WRONLY|O_CREAT|O_TRUNC, mode applied on creation) without its
    // Buffer copy of every string: writeSync writes a string straight through; empty files skip it.
    const fd = fs.openSync(this.at(hostPath), 'w', mode);
    try {
      if (content !== '') fs.writeSync(fd, content);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Creates or replaces a symlink whose target is stored exactly as given (relative like the kernel's). */
  link(hostPath: string, target: string): void {
    const p = this.at(hostPath);
    try {
      fs.symlinkSync(target, p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      fs.unlinkSync(p);
      fs.symlinkSync(target, p);
    }
  }

  /**
   * A symlink at `hostPath` pointing at `targetHostPath`, relative like sysfs makes them: up to the
   * target's parent, then its name — so a link to an ancestor reads `../../../host0`, never `../..`.
   */
  relLink(hostPath: string, targetHostPath: string): void {
    this.link(hostPath, relativeLink(hostPath, targetHostPath));
  }

  exists(hostPath: string): boolean {
    return fs.existsSync(this.at(hostPath));
  }

  /** Removes a file, link or whole subtree of the simulated tree (never outside the root). */
  remove(hostPath: string): void {
    if (!hostPath.startsWith('/') || hostPath.includes('..') || hostPath === '/') {
      throw new Error(`refusing to remove ${hostPath}`);
    }
    this.removals++;
    fs.rmSync(this.at(hostPath), { recursive: true, force: true });
  }

  /** Resolves every symlink of a host path inside the tree; undefined when absent or dangling. */
  realpath(hostPath: string): string | undefined {
    try {
      const real = fs.realpathSync(this.at(hostPath));
      return real.startsWith(this.root) ? real.slice(this.root.length) || '/' : undefined;
    } catch {
      return undefined;
    }
  }

  read(hostPath: string): string | undefined {
    try {
      return fs.readFileSync(this.at(hostPath), 'utf8');
    } catch {
      return undefined;
    }
  }

  list(hostPath: string): string[] {
    try {
      return fs.readdirSync(this.at(hostPath));
    } catch {
      return [];
    }
  }

  isDir(hostPath: string): boolean {
    return fs.statSync(this.at(hostPath), { throwIfNoEntry: false })?.isDirectory() ?? false;
  }
}

/**
 * The relative target of a symlink at `from` pointing at `to` (both absolute, normalised host
 * paths): up from `from`'s directory to the deepest common directory, then down to `to`. Equal to
 * `join(relative(dirname(from), dirname(to)), basename(to))`, without path's normalisation work:
 * the scale scenario makes ~34,000 links.
 */
export function relativeLink(from: string, to: string): string {
  const a = from.split('/');
  const b = to.split('/');
  // Compare directories only: the last component of each is the entry itself.
  const aDirs = a.length - 1;
  const bDirs = b.length - 1;
  let common = 0;
  while (common < aDirs && common < bDirs && a[common] === b[common]) common++;
  let out = '';
  for (let i = common; i < aDirs; i++) out += '../';
  for (let i = common; i < b.length; i++) out += i === b.length - 1 ? b[i] : `${b[i]}/`;
  return out;
}

/**
 * Deletes a directory tree with synchronous calls and one readdir (with types) per directory: no
 * lstat per entry and no promise per file, unlike fs.rm. A 1,000-session tree has ~140,000 entries,
 * and closing the simulator must not cost more than building it. Symlinks are removed, never followed.
 */
export function removeTree(dir: string): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for (const e of entries) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) removeTree(p);
    else fs.unlinkSync(p);
  }
  fs.rmdirSync(dir);
}
