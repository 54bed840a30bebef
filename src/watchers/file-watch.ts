/**
 * chokidar on regular files only (never sysfs: §2.9): kubelet's iSCSI plugin dir and pod volume
 * dirs (iscsi.json added, changed, removed; dirs created and removed) and the open-iscsi node DB.
 * Native backend (inotify): no polling cost while idle. Watches are depth-limited and filtered so we
 * never descend into a mounted volume: a mounted global dir or pod volume dir is the user's
 * filesystem, whose writes are none of our business (and would burn inotify watches).
 */
import { type FSWatcher, watch } from 'chokidar';
import type { Host } from '../engine/host/host.js';
import { under } from '../engine/host/path.js';

export interface FileSourceSpec {
  /** Health name: 'kubelet-files' or 'node-db'. */
  source: string;
  /** Host path of the watched directory. */
  hostPath: string;
  depth: number;
  /** Whether a path (split relative to hostPath) is watched; the root itself is always. */
  accept(rel: readonly string[]): boolean;
}

const ISCSI_PLUGIN = 'plugins/kubernetes.io/iscsi';

/**
 * Global dirs: `iface-<x>/<portal>-<iqn>-lun-<n>/iscsi.json` (filesystem) and
 * `volumeDevices/iface-<x>/<portal>-<iqn>-lun-<n>/{iscsi.json,<podUID>}` (block), per kubelet's
 * makePDNameInternal / makeVDPDNameInternal (kubelet-iscsi-engine.md §1).
 */
function acceptPlugin(rel: readonly string[]): boolean {
  if (rel[0] === 'volumeDevices') return rel.length <= 4;
  return rel.length <= 2 || (rel.length === 3 && rel[2] === 'iscsi.json');
}

/** Pod volume dirs: `<uid>/volumes/kubernetes.io~iscsi/<vol>` and `<uid>/volumeDevices/kubernetes.io~iscsi/<vol>`. */
function acceptPods(rel: readonly string[]): boolean {
  if (rel.length === 1) return true;
  if (rel[1] !== 'volumes' && rel[1] !== 'volumeDevices') return false;
  return rel.length === 2 || rel[2] === 'kubernetes.io~iscsi';
}

/** What to watch for a kubelet root and the node DB roots. */
export function fileSources(kubeletRoot: string, dbRoots: readonly string[]): FileSourceSpec[] {
  const k = kubeletRoot.replace(/\/+$/, '');
  const specs: FileSourceSpec[] = [
    { source: 'kubelet-files', hostPath: `${k}/${ISCSI_PLUGIN}`, depth: 3, accept: acceptPlugin },
    { source: 'kubelet-files', hostPath: `${k}/pods`, depth: 2, accept: acceptPods },
  ];
  for (const r of dbRoots) {
    // nodes/<iqn>/<addr,port,tpgt>/<iface> (or a file at the second level in old layouts); ifaces/<name>.
    specs.push({ source: 'node-db', hostPath: `${r}/nodes`, depth: 2, accept: (rel) => rel.length <= 3 });
    specs.push({ source: 'node-db', hostPath: `${r}/ifaces`, depth: 0, accept: (rel) => rel.length <= 1 });
  }
  return specs;
}

export interface FileWatch {
  readonly spec: FileSourceSpec;
  /** Resolves once the initial scan is done (events before it are not reported: ignoreInitial). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts one chokidar watcher. `onChange` gets the host path of what changed; `onError` a message
 * (ENOSPC when inotify watches run out, EACCES...). Returns undefined when the dir does not exist
 * yet: the caller re-checks on its poll tick (kubelet creates the plugin dir on first attach).
 */
export function startFileWatch(
  host: Host,
  spec: FileSourceSpec,
  onChange: (hostPath: string) => void,
  onError: (message: string) => void,
): FileWatch | undefined {
  if (host.stat(spec.hostPath) !== 'dir') return undefined;
  const real = under(host.root, spec.hostPath);
  const toHost = (p: string) => spec.hostPath + p.slice(real.length);
  const watcher: FSWatcher = watch(real, {
    ignoreInitial: true,
    followSymlinks: false,
    backend: 'native',
    depth: spec.depth,
    // The console and `watch` own the process lifetime; a watcher never keeps it alive.
    persistent: false,
    ignorePermissionErrors: true,
    ignored: (p: string) => {
      if (p.length <= real.length) return false;
      return !spec.accept(p.slice(real.length + 1).split('/'));
    },
  });
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  watcher.on('all', (_event, p) => onChange(toHost(p)));
  watcher.on('error', (e) => onError(`${spec.hostPath}: ${(e as Error).message ?? String(e)}`));
  return {
    spec,
    ready,
    close: () => watcher.close(),
  };
}
