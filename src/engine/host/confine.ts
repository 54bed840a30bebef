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
 * Resolved directories are cached until `clear()` (the Host clears it at the start of every
 * snapshot): a 1,000-session snapshot walks ~40,000 distinct directories and reads ~75,000 paths
 * inside them, so each directory costs one lstat once, not once per file. The cache is a tree of
 * the directories as they are on disk, looked up one component name at a time from the deepest
 * directory the path shares with the last one asked: profiled, hashing whole ~100-char paths for a
 * Map lookup per call was the largest JS cost of confinement, and a Map of paths kept ~8 MB alive
 * through every young-generation GC of the snapshot (bench/README.md).
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

interface Resolved {
  /** Canonical host path: no symlink in any prefix, no `.`/`..`/empty component. */
  path: string;
  /** Where it really is: the root's path + `path`. */
  real: string;
  /** What is there: `symlink` only when the final component was not followed; `absent` when missing. */
  kind: ResolvedKind;
}

/** Splits a host path into its parent (as written) and last component; no parent for `/`. */
function splitHostPath(path: string): { parent: string | undefined; name: string } {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  const p = end === path.length ? path : path.slice(0, end);
  if (p === '/' || p === '') return { parent: undefined, name: '' };
  const i = p.lastIndexOf('/');
  if (i < 0) return { parent: '/', name: p };
  return { parent: i === 0 ? '/' : p.slice(0, i), name: p.slice(i + 1) };
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

const NO_THROW = { throwIfNoEntry: false } as const;
/** A directory with more entries than this looks them up by hash, not by scanning its list. */
const LIST_MAX = 12;

/**
 * A directory seen in this snapshot, at its canonical place. The nodes mirror the tree as it is on
 * disk: a directory's node is reached by every route to it (a link's entry leads to it, `..` is its
 * parent), and a node holds no path, only its name: paths are built along the walk. What the cache
 * keeps alive is copied by every young-generation GC of the snapshot (bench/README.md), so a node is
 * one small object: its entries are a list linked through `next`, with a Map beside it only in a
 * large directory.
 */
class DirNode {
  first: Entry | undefined = undefined;
  next: Entry | undefined = undefined;
  map: Map<string, Entry> | undefined = undefined;
  constructor(
    readonly name: string,
    readonly parent: DirNode | undefined,
  ) {}

  get(name: string): Entry | undefined {
    if (this.map !== undefined) return this.map.get(name);
    for (let e = this.first; e !== undefined; e = e.next) if (e.name === name) return e;
    return undefined;
  }

  /** Counted, not kept in a field: a field more on each of ~40,000 nodes (bench/README.md). */
  private listLongerThan(n: number): boolean {
    let k = 0;
    for (let x = this.first; x !== undefined; x = x.next) if (++k > n) return true;
    return false;
  }

  add(e: Entry): void {
    e.next = this.first;
    this.first = e;
    if (this.map !== undefined) this.map.set(e.name, e);
    else if (this.listLongerThan(LIST_MAX)) {
      const map = new Map<string, Entry>();
      for (let x: Entry | undefined = this.first; x !== undefined; x = x.next)
        if (!map.has(x.name)) map.set(x.name, x);
      this.map = map;
    }
  }
}

/** A symlink to a directory, as an entry of the directory it is in: where it leads, and its real path. */
class LinkEntry {
  next: Entry | undefined = undefined;
  constructor(
    readonly name: string,
    readonly target: DirNode,
    readonly real: string,
  ) {}
}

/**
 * A name seen missing in a directory during one snapshot's read (Host.startRead to endRead): looked
 * up again, it is missing without an lstat. A root without `/run` (a fixture, a minimal host) would
 * otherwise cost one lstat per udev database file asked for (~5,000 at 1,000 sessions × 4 LUNs).
 */
class AbsentEntry {
  next: Entry | undefined = undefined;
  constructor(readonly name: string) {}
}

/**
 * A symlink a listing of its directory showed (d_type), not followed yet: following it needs its
 * readlink, not an lstat first. Once followed, a LinkEntry of the same name is found before it.
 */
class ListedLink {
  next: Entry | undefined = undefined;
  constructor(readonly name: string) {}
}

type Entry = DirNode | LinkEntry | AbsentEntry | ListedLink;

export class RootResolver {
  private top: DirNode;
  private hops = 0;
  /**
   * The walk of the last directory path asked for: the path, and for each component reached, its
   * node, the offset in the path where it ends and its real path. The next path is most often in
   * the same directory or next to it; it starts from the deepest component the two paths share.
   */
  private last = '';
  private depth = 1;
  private readonly nodes: DirNode[];
  private readonly ends: number[] = [0];
  private readonly reals: string[];
  /** The real path of the node the last `child`/`walk` call returned. */
  private outReal = '';
  /**
   * Whether missing names are kept (AbsentEntry): only while a snapshot reads (`reading`). Outside
   * a read the cache outlives the moment (an action waits for a device's dir to appear), and a name
   * once missing must be looked up again.
   */
  private keepAbsent = false;

  /**
   * `root` is the directory host paths live under, without a trailing slash (never `/`). `trace`
   * sees every lstat/readlink the walk makes (the bench's floor replays them as bare syscalls).
   */
  constructor(
    readonly root: string,
    private readonly trace?: (op: 'lstat' | 'readlink', real: string) => void,
  ) {
    this.top = new DirNode('', undefined);
    this.nodes = [this.top];
    this.reals = [root];
  }

  /**
   * A snapshot's read begins (`true`) or ends: the cache is dropped either way, and while the read
   * lasts a name found missing stays missing (nothing the read does creates one).
   */
  reading(on: boolean): void {
    this.clear();
    this.keepAbsent = on;
  }

  /** Forgets every resolved directory (the tree may have changed). */
  clear(): void {
    this.top = new DirNode('', undefined);
    this.nodes.length = 1;
    this.nodes[0] = this.top;
    this.reals.length = 1;
    this.ends.length = 1;
    this.depth = 1;
    this.last = '';
  }

  /**
   * The real path of the entry `path` names, its directory resolved inside the root and its final
   * component not followed (callers open it O_NOFOLLOW); undefined when the final component is `.`,
   * `..` or empty. The engine reads a dozen attributes of one directory in a row: a name in the last
   * directory asked for costs no lookup at all.
   */
  entry(path: string): string | undefined {
    const last = this.last;
    const n = last.length;
    if (
      n > 0 &&
      path.length > n + 1 &&
      path.charCodeAt(n) === 47 &&
      path.charCodeAt(n + 1) !== 46 &&
      path.indexOf('/', n + 1) === -1 &&
      path.startsWith(last)
    ) {
      return this.reals[this.depth - 1] + path.slice(n);
    }
    const { parent, name } = splitHostPath(path);
    if (parent === undefined || name === '' || name === '.' || name === '..') return undefined;
    this.hops = 0;
    return `${this.reals[this.walkPath(parent)]}/${name}`;
  }

  /** Where a canonical host path really is. */
  real(canonical: string): string {
    return canonical === '/' ? this.root : this.root + canonical;
  }

  /** Canonical host path of the directory `path` names (symlinks followed inside the root). */
  dir(path: string): string {
    return this.canonical(this.dirReal(path));
  }

  /** Where the directory `path` names really is (symlinks followed inside the root). */
  dirReal(path: string): string {
    this.hops = 0;
    return this.reals[this.walkPath(path)] as string;
  }

  /**
   * `dirReal`, but undefined instead of ENOENT when a directory on the way is missing (an answer on
   * a hot path: the engine lists dirs that most devices do not have, such as a controller's `block`).
   */
  dirRealIfAny(path: string): string | undefined {
    this.hops = 0;
    const d = this.walkPath(path, true);
    return d < 0 ? undefined : this.reals[d];
  }

  /**
   * Lists the directory `path` names (`dirRealIfAny`'s walk; undefined when a directory on the way
   * is missing). The listing's d_type says which entries are directories and which are symlinks, so
   * walking into them later costs no lstat: at 1,000 sessions × 4 LUNs about half of the snapshot's
   * ~42,000 lstats were of entries of a directory it had just listed (a target's LUNs, a LUN's
   * block device, a session's connections and targets, the kubelet's pod dirs).
   */
  list(path: string): string[] | undefined {
    this.hops = 0;
    const d = this.walkPath(path, true);
    if (d < 0) return undefined;
    const n = this.nodes[d] as DirNode;
    const entries = fs.readdirSync(this.reals[d] as string, { withFileTypes: true });
    const names: string[] = new Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as fs.Dirent;
      const name = e.name;
      names[i] = name;
      // Only what the cache would learn from an lstat; an entry already known stays as it is.
      if (e.isDirectory()) {
        if (n.get(name) === undefined) n.add(new DirNode(name, n));
      } else if (e.isSymbolicLink() && n.get(name) === undefined) n.add(new ListedLink(name));
    }
    return names;
  }

  /**
   * Resolves `path`; its final component is followed when it is a symlink and `follow` is set.
   * Throws ResolveError when a directory on the way is missing, not a directory, or a loop.
   */
  resolve(path: string, follow: boolean): Resolved {
    this.hops = 0;
    const { parent, name } = splitHostPath(path);
    if (parent === undefined) return { path: '/', real: this.root, kind: 'dir' };
    const d = this.walkPath(parent);
    return this.final(this.nodes[d] as DirNode, this.reals[d] as string, name, follow);
  }

  /** The parent's canonical dir, its real path and the last component of `path` (not followed). */
  parentAndName(path: string): { dir: string; real: string; name: string } {
    const { parent, name } = splitHostPath(path);
    if (parent === undefined) return { dir: '/', real: this.root, name: '' };
    const real = this.dirReal(parent);
    return { dir: this.canonical(real), real, name };
  }

  private canonical(real: string): string {
    return real.length === this.root.length ? '/' : real.slice(this.root.length);
  }

  /**
   * Walks the directory `path` from the deepest component it shares with the last one, keeping
   * the walk for the next; returns the index of its node in `nodes`/`reals`.
   */
  private walkPath(path: string, soft = false): number {
    const last = this.last;
    const len = path.length;
    // Most often the path goes on below the last one (a directory, then its subdirectory).
    let k = last.length;
    if (!path.startsWith(last)) {
      const m = Math.min(len, k);
      k = 0;
      while (k < m && path.charCodeAt(k) === last.charCodeAt(k)) k++;
    }
    const { nodes, ends, reals } = this;
    let d = this.depth;
    // The deepest component ending inside the shared prefix, at a component boundary of `path`.
    while (d > 1) {
      const e = ends[d - 1] as number;
      if (e <= k && (e === len || path.charCodeAt(e) === 47)) break;
      d--;
    }
    // Entries from d on are the last walk's and are overwritten as this one goes (descend keeps
    // `depth` right at every step, so a component that fails leaves a walk that is still true).
    this.depth = d;
    let n: DirNode | undefined;
    try {
      n = this.descend(
        nodes[d - 1] as DirNode,
        reals[d - 1] as string,
        path,
        ends[d - 1] as number,
        true,
        soft,
      );
    } finally {
      this.last = n !== undefined ? path : path.slice(0, ends[this.depth - 1]);
    }
    return n === undefined ? -1 : this.depth - 1;
  }

  /** Walks `path` from `n` (at `real`) without keeping the walk (a link's target); sets outReal. */
  private walkFrom(n: DirNode, real: string, path: string): DirNode {
    return this.descend(n, real, path, 0, false, false) as DirNode;
  }

  /**
   * Walks `path` from offset `i` and node `n` (at `real`), one component at a time (`.` and empty
   * ones are nothing); with `keep`, each node reached is pushed on the last walk. Sets outReal to
   * the real path of the node returned; undefined when `soft` and a component is missing.
   */
  private descend(
    n: DirNode,
    real: string,
    path: string,
    i: number,
    keep: boolean,
    soft: boolean,
  ): DirNode | undefined {
    const len = path.length;
    while (i < len) {
      if (path.charCodeAt(i) === 47) {
        i++;
        continue;
      }
      let j = path.indexOf('/', i);
      if (j < 0) j = len;
      if (j - i !== 1 || path.charCodeAt(i) !== 46) {
        const c = this.child(n, real, path.slice(i, j), soft);
        if (c === undefined) return undefined;
        n = c;
        real = this.outReal;
        if (keep) {
          const d = this.depth;
          this.nodes[d] = n;
          this.ends[d] = j;
          this.reals[d] = real;
          this.depth = d + 1;
        }
      }
      i = j;
    }
    this.outReal = real;
    return n;
  }

  /**
   * The directory `name` (not `.` or empty) names in `n` (at `real`): the node, its real path in
   * outReal. A name seen before costs nothing; a new one one lstat (and readlink for a link, whose
   * target is walked inside the root: an absolute one from the root); a link a listing showed, its
   * readlink alone.
   */
  private child(n: DirNode, real: string, name: string, soft: boolean): DirNode | undefined {
    if (name === '..') {
      const p = n.parent;
      if (p === undefined) {
        this.outReal = real;
        return n;
      }
      this.outReal = real.slice(0, real.lastIndexOf('/'));
      return p;
    }
    const hit = n.get(name);
    if (hit !== undefined && !(hit instanceof ListedLink)) {
      if (hit instanceof AbsentEntry) {
        if (soft) return undefined;
        throw new ResolveError('ENOENT');
      }
      if (hit instanceof LinkEntry) {
        this.outReal = hit.real;
        return hit.target;
      }
      this.outReal = `${real}/${name}`;
      return hit;
    }
    const candidate = `${real}/${name}`;
    let target = hit === undefined ? undefined : this.listedTarget(candidate);
    if (target === undefined) {
      const st = this.lstat(candidate);
      if (st === undefined) {
        if (this.keepAbsent) n.add(new AbsentEntry(name));
        if (soft) return undefined;
        throw new ResolveError('ENOENT');
      }
      if (st.isDirectory()) {
        const kid = new DirNode(name, n);
        n.add(kid);
        this.outReal = candidate;
        return kid;
      }
      if (!st.isSymbolicLink()) throw new ResolveError('ENOTDIR');
      target = this.readlink(candidate);
    }
    const t =
      target.charCodeAt(0) === 47
        ? this.walkFrom(this.top, this.root, target)
        : this.walkFrom(n, real, target);
    // outReal is the target's, from walkFrom.
    n.add(new LinkEntry(name, t, this.outReal));
    return t;
  }

  private lstat(real: string): fs.Stats | undefined {
    this.trace?.('lstat', real);
    try {
      return fs.lstatSync(real, NO_THROW);
    } catch (e) {
      throw new ResolveError(codeOf(e));
    }
  }

  /**
   * The target of a link a listing showed; undefined when it is no longer one (gone, or replaced
   * since the listing), and then the name is looked at afresh as if never seen.
   */
  private listedTarget(real: string): string | undefined {
    if (this.hops + 1 > MAX_SYMLINK_HOPS) throw new ResolveError('ELOOP');
    this.trace?.('readlink', real);
    try {
      const target = fs.readlinkSync(real);
      if (target === '') return undefined;
      this.hops++;
      return target;
    } catch {
      return undefined;
    }
  }

  /** readlink of a symlink being followed: one more hop, ELOOP past the kernel's limit. */
  private readlink(real: string): string {
    if (++this.hops > MAX_SYMLINK_HOPS) throw new ResolveError('ELOOP');
    this.trace?.('readlink', real);
    let target: string;
    try {
      target = fs.readlinkSync(real);
    } catch (e) {
      throw new ResolveError(codeOf(e));
    }
    if (target === '') throw new ResolveError('ENOENT');
    return target;
  }

  /** The final component `name` in directory `n` (at `real`), followed inside the root if asked. */
  private final(n: DirNode, real: string, name: string, follow: boolean): Resolved {
    if (name === '' || name === '.') return { path: this.canonical(real), real, kind: 'dir' };
    if (name === '..') {
      this.child(n, real, name, false);
      return { path: this.canonical(this.outReal), real: this.outReal, kind: 'dir' };
    }
    const candidate = `${real}/${name}`;
    const st = this.lstat(candidate);
    if (st === undefined) return { path: this.canonical(candidate), real: candidate, kind: 'absent' };
    if (!st.isSymbolicLink() || !follow) {
      return { path: this.canonical(candidate), real: candidate, kind: kindOf(st) };
    }
    const target = this.readlink(candidate);
    // The target's directory walked inside the root (an absolute target from the root), then its
    // final component resolved the same way.
    const split = splitHostPath(target);
    let dir = n;
    let dirReal = real;
    if (target.charCodeAt(0) === 47) {
      dir = this.top;
      dirReal = this.root;
    }
    if (split.parent !== undefined && split.parent !== '/') {
      dir = this.walkFrom(dir, dirReal, split.parent);
      dirReal = this.outReal;
    }
    if (split.parent === undefined) return { path: this.canonical(dirReal), real: dirReal, kind: 'dir' };
    return this.final(dir, dirReal, split.name, true);
  }
}
