/**
 * chokidar on regular files only (never sysfs: docs/architecture.md#sysfs-is-polled-not-watched): kubelet's iSCSI plugin dir, the pods dir and
 * the open-iscsi node DB. Native backend (inotify, one watch per directory): no polling cost while
 * idle. ignoreInitial: the first snapshot already read what is there.
 *
 * Shallow on purpose: only the directories whose ENTRIES kubelet changes are watched, never a
 * filesystem global dir or a pod dir's contents. Watching every dir of a 1,000-session × 4-LUN node
 * (~6,000 dirs) cost chokidar 4.3 s of CPU, +140 MB of RSS and 13.8 s until ready (bench/README.md).
 * Watched:
 * - `plugins/kubernetes.io/iscsi`, its `iface-*` dirs and `volumeDevices`: filesystem global dirs
 *   (`iface-<x>/<portal>-<iqn>-lun-<n>`, makePDNameInternal) appear and vanish;
 * - `volumeDevices/iface-*` and the block global dirs in them (makeVDPDNameInternal): these are
 *   never mounted (docs/kubelet-iscsi.md#iscsijson), so their entries (`iscsi.json`, and `<podUID>`,
 *   a bind mount of a /dev node, which mountinfo's block filter leaves out) are watched too;
 * - `pods`: pod UID dirs appear and vanish.
 * The entries of a watched dir (one global dir per LUN, one dir per pod: thousands) are reported
 * from chokidar's `raw` events of that dir, not tracked by chokidar: it would lstat and keep
 * each of them (~0.3 ms of CPU and ~13 KB each, measured on chokidar 6.0.0).
 *
 * Not watched: what happens inside a filesystem global dir or a pod dir. Global and pod volume
 * dirs are mount points (the user's filesystem: its writes are none of our business and would burn
 * inotify watches), and every kubelet change in them is paired with a mount change (docs/kubelet-iscsi.md#call-sequence):
 * MountDevice mkdirs and mounts the global dir (on error removes it); diskSetUp mkdirs the pod dir
 * and bind-mounts it (on failure unmounts and removes it); TearDownAt (CleanupMountPoint) and
 * UnmountDevice (DetachDisk, then RemoveAll) unmount, then remove the dir, in the same call. The
 * watcher's poll sees mountinfo move (proc-probe.ts), and every refresh, incremental or full,
 * re-reads the whole kubelet tree (incremental.ts). So a change in there shows at the next
 * refresh, not at once: an iscsi.json rewritten or removed in a global dir that stays, or a pod
 * volume dir (or a block volume's symlink, which has no mount) created under a pod dir that
 * already exists, is read by the refresh that its mount, its block global dir's `<podUID>` entry,
 * its loop device (sysfs poll) or any other event causes.
 */
import { type FSWatcher, watch } from 'chokidar';
import type { Host } from '../engine/host/host.js';
import { basename, under } from '../engine/host/path.js';

export interface FileSourceSpec {
  /** Health name: 'kubelet-files' or 'node-db'. */
  source: string;
  /** Host path of the watched directory. */
  hostPath: string;
  /**
   * How deep directories are watched (chokidar's `depth`): a dir whose path relative to `hostPath`
   * has N parts is watched when N ≤ depth (the root is N = 0). Entries of a watched dir are reported
   * one level deeper, filtered by `accept`.
   */
  depth: number;
  /** Whether a path (split relative to hostPath) is reported (and within `depth`, watched); the root always is. */
  accept(rel: readonly string[]): boolean;
}

const ISCSI_PLUGIN = 'plugins/kubernetes.io/iscsi';

/** Paths of at most `n` parts below the spec's root. */
const upTo =
  (n: number) =>
  (rel: readonly string[]): boolean =>
    rel.length <= n;

/** What to watch for a kubelet root and the node DB roots. */
export function fileSources(kubeletRoot: string, dbRoots: readonly string[]): FileSourceSpec[] {
  const k = kubeletRoot.replace(/\/+$/, '');
  const specs: FileSourceSpec[] = [
    // The root, `iface-*` and `volumeDevices`; reports the filesystem global dirs (not watched).
    { source: 'kubelet-files', hostPath: `${k}/${ISCSI_PLUGIN}`, depth: 1, accept: upTo(2) },
    // The pods dir alone: pod UID dirs.
    { source: 'kubelet-files', hostPath: `${k}/pods`, depth: 0, accept: upTo(1) },
    // `volumeDevices/iface-<x>/<global>/{iscsi.json,<podUID>}`: block global dirs are not mounted.
    // Absent on a node without block volumes: the watcher re-checks it each tick.
    { source: 'kubelet-files', hostPath: `${k}/${ISCSI_PLUGIN}/volumeDevices`, depth: 2, accept: upTo(3) },
  ];
  for (const r of dbRoots) {
    // nodes/<iqn>/<addr,port,tpgt>/<iface> (or a file at the second level in old layouts); ifaces/<name>.
    specs.push({ source: 'node-db', hostPath: `${r}/nodes`, depth: 2, accept: upTo(3) });
    specs.push({ source: 'node-db', hostPath: `${r}/ifaces`, depth: 0, accept: upTo(1) });
  }
  return specs;
}

export interface FileWatch {
  readonly spec: FileSourceSpec;
  /** Resolves once the initial scan is done (what existed before it is not reported: ignoreInitial). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts one chokidar watcher. `onChange` gets the host path of what changed; `onError` a message
 * (ENOSPC when inotify watches run out, EACCES on the root...). Returns undefined when the dir does
 * not exist yet: the caller re-checks on its poll tick (kubelet creates the plugin dir on first
 * attach).
 */
export function startFileWatch(
  host: Host,
  spec: FileSourceSpec,
  onChange: (hostPath: string) => void,
  onError: (message: string) => void,
): FileWatch | undefined {
  if (host.stat(spec.hostPath) !== 'dir') return undefined;
  // Under a --root the dir is resolved inside it (a host whose /var/lib/kubelet links to
  // /data/kubelet is watched at <root>/data/kubelet, never the console machine's /data/kubelet).
  const real = host.resolvePath?.(spec.hostPath) ?? under(host.root, spec.hostPath);
  const toHost = (p: string) => spec.hostPath + p.slice(real.length);
  const relOf = (p: string): string[] => (p.length <= real.length ? [] : p.slice(real.length + 1).split('/'));
  const watcher: FSWatcher = watch(real, {
    ignoreInitial: true,
    // No stat per event: the path is all a refresh request needs.
    alwaysStat: false,
    // A block pod volume links to /dev/sdX; a global dir's `<podUID>` is a device node.
    followSymlinks: false,
    backend: 'native',
    depth: spec.depth,
    // The console and `watch` own the process lifetime; a watcher never keeps it alive.
    persistent: false,
    ignorePermissionErrors: true,
    // chokidar keeps track of the watched dirs only. Every entry it tracks costs it an lstat and its
    // own bookkeeping (~0.3 ms of CPU and ~13 KB each, measured on chokidar 6.0.0), and the entries
    // of the watched dirs are thousands on a busy node (one global dir per LUN, one dir per pod):
    // those are reported from the raw events below instead.
    ignored: (p: string) => {
      const rel = relOf(p);
      return rel.length > spec.depth || (rel.length > 0 && !spec.accept(rel));
    },
  });
  // Closed before its scan finished (the console quit at once, the terminal hung up): ready all
  // the same, or the watcher's stop would wait for a 'ready' that never comes, with nothing left to
  // keep the process alive: it would end there without its cleanup (the demo tree, the exit code).
  let settle: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    settle = resolve;
    watcher.once('ready', () => resolve());
  });
  // Watched dirs appearing or going (a new `iface-*`; the root removed).
  watcher.on('all', (_event, p) => onChange(toHost(p)));
  // The inotify event of a watched dir, naming the entry that was created, removed or written:
  // chokidar's `raw` event, the backend's (event, name, { watchedPath }). Its README calls it
  // unstable; package.json pins chokidar 6.0.0 and test/watchers/file-watch.test.ts fails if it moves.
  watcher.on('raw', (_event, name, details) => {
    const dir = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
    // chokidar also watches the root's parent (to see the root go): its other entries are not ours.
    if (typeof dir !== 'string' || (dir !== real && !dir.startsWith(`${real}/`))) return;
    // No name, or the dir's own name (Linux reports a watched dir's removal so): the dir itself.
    if (typeof name !== 'string' || name === '' || name === basename(dir)) {
      onChange(toHost(dir));
      return;
    }
    const p = `${dir}/${name}`;
    if (spec.accept(relOf(p))) onChange(toHost(p));
  });
  watcher.on('error', (e) => {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOSPC' ? ' (inotify watches exhausted: fs.inotify.max_user_watches)' : '';
    onError(`${spec.hostPath}: ${(e as Error).message ?? String(e)}${why}`);
  });
  return {
    spec,
    ready,
    close: async () => {
      await watcher.close();
      settle();
    },
  };
}
