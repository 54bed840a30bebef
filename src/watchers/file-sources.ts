/**
 * The file-watch source: one chokidar watch per kubelet/node-DB dir (file-watch.ts says which and
 * why shallow), each event a settled refresh. A dir absent at start (no iSCSI volume yet, no node
 * DB) is looked for again on every poll tick and watched once it appears.
 */
import type { Host } from '../engine/host/host.js';
import { fileWatchFailed } from './events.js';
import { type FileSourceSpec, type FileWatch, startFileWatch } from './file-watch.js';
import type { Refresher } from './refresher.js';
import type { SourceHealthBoard } from './source-health.js';

interface FileSourcesOptions {
  host: Host;
  /** The dirs to watch (file-watch.ts fileSources; none when file watching is off). */
  specs: readonly FileSourceSpec[];
  refresher: Refresher;
  health: SourceHealthBoard;
  /** True once the node has been read: a dir that appears later may already hold news. */
  read: () => boolean;
}

interface FileSources {
  /** Starts watching every dir that exists now and is not watched yet (each poll tick). */
  startMissing(): void;
  /** Resolves when every watch started so far is ready. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createFileSources(o: FileSourcesOptions): FileSources {
  const { specs } = o;
  const watches = new Map<FileSourceSpec, FileWatch>();
  const readyWatches: Promise<void>[] = [];

  function report(): void {
    for (const name of new Set(specs.map((s) => s.source))) {
      const watched = specs.filter((s) => s.source === name && watches.has(s)).map((s) => s.hostPath);
      const missing = specs.filter((s) => s.source === name && !watches.has(s)).map((s) => s.hostPath);
      const detail = [
        watched.length > 0 ? `watching ${watched.join(', ')}` : '',
        missing.length > 0 ? `absent (re-checked each tick): ${missing.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ');
      o.health.set(name, watched.length > 0, detail);
    }
  }

  return {
    startMissing() {
      let started = false;
      for (const spec of specs) {
        if (watches.has(spec)) continue;
        const w = startFileWatch(
          o.host,
          spec,
          (p) => o.refresher.soon(`file ${p}`),
          (m) => o.health.fail(fileWatchFailed(m)),
        );
        if (!w) continue;
        watches.set(spec, w);
        readyWatches.push(w.ready);
        started = true;
        // A dir that appeared since the last look may already hold what we would have seen.
        if (o.read()) o.refresher.soon(`watching ${spec.hostPath}`);
      }
      if (started || !o.health.has('kubelet-files')) report();
    },
    async ready() {
      await Promise.all(readyWatches);
    },
    async close() {
      await Promise.all([...watches.values()].map((w) => w.close()));
      watches.clear();
    },
  };
}
