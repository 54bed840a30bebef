import * as fs from 'node:fs';
import { posix } from 'node:path';

/**
 * Writes the simulated node as real files and relative symlinks under a root directory, so the
 * engine reads it through the same fs code as a `--root` fixture. Every method takes a HOST path.
 */
export class Tree {
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
    fs.writeFileSync(this.at(hostPath), content, { mode });
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
    const up = posix.relative(posix.dirname(hostPath), posix.dirname(targetHostPath));
    this.link(hostPath, posix.join(up, posix.basename(targetHostPath)));
  }

  exists(hostPath: string): boolean {
    return fs.existsSync(this.at(hostPath));
  }

  /** Removes a file, link or whole subtree of the simulated tree (never outside the root). */
  remove(hostPath: string): void {
    if (!hostPath.startsWith('/') || hostPath.includes('..') || hostPath === '/') {
      throw new Error(`refusing to remove ${hostPath}`);
    }
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
