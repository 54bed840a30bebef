/**
 * `serve`'s exposition, from the store. A snapshot's families are rendered once, soon after the
 * store publishes it, into ready buffers, and deflated once on libuv's thread pool; a scrape only
 * renders the exporter's own families (counters, last read: a few hundred bytes) and writes the
 * kept buffers around them. At 1,000 × 4 sessions the snapshot's part is ~3.6 MB of text and
 * ~24,000 series: rendering it per scrape, or compressing it per scrape, cost more than the
 * scrape budget (bench/README.md "serve").
 *
 * The body is the same bytes `metrics` prints for the same snapshot and counters: families sorted
 * by name (exposition.ts), the exporter's own in their sorted places.
 */
import {
  exporterMetrics,
  FAMILIES,
  type FamilyName,
  isExporterFamily,
  renderEach,
  snapshotMetrics,
  type WatcherCounters,
} from '../engine/metrics/index.js';
import type { Snapshot } from '../engine/model.js';
import type { MetricsCounters } from '../watchers/metrics-counters.js';
import type { NodeStore } from '../watchers/store.js';
import { type DeflatedPart, deflatePart, type GzipPart, gzipParts } from './gzip-parts.js';

interface RendererOptions {
  store: NodeStore;
  counters: MetricsCounters;
  version: string;
  maxSessions: number;
}

/** One scrape's body. */
interface ScrapeBody {
  /** The exposition's bytes, in order. */
  plain: Buffer[];
  /** The same bytes as one gzip member; undefined when compressing the snapshot's part failed. */
  gzip(): Promise<Buffer[] | undefined>;
}

export interface MetricsRenderer {
  /** The current body, or undefined before the watcher's first full read. */
  render(): ScrapeBody | undefined;
  stop(): void;
}

/** A run of consecutive snapshot families (one buffer, deflated once), or an exporter family's place. */
type Slot = { run: Buffer; deflated: Promise<DeflatedPart | undefined> } | { own: FamilyName };

interface Prepared {
  snapshot: Snapshot;
  slots: Slot[];
}

/** Every family name in the exposition's order (renderExposition sorts the same way). */
const ORDER = (Object.keys(FAMILIES) as FamilyName[]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The snapshot's family texts cut into runs between the exporter's families, each deflated. */
function prepare(snapshot: Snapshot, texts: ReadonlyMap<string, string>): Prepared {
  const slots: Slot[] = [];
  let run: string[] = [];
  const close = () => {
    if (run.length === 0) return;
    const buf = Buffer.from(run.join(''));
    // A failed compression (out of memory) leaves gzip off for this snapshot, not the scrape failed.
    slots.push({ run: buf, deflated: deflatePart(buf).catch(() => undefined) });
    run = [];
  };
  for (const name of ORDER) {
    if (isExporterFamily(name)) {
      close();
      slots.push({ own: name });
    } else {
      const t = texts.get(name);
      if (t !== undefined) run.push(t);
    }
  }
  close();
  return { snapshot, slots };
}

export function createMetricsRenderer(o: RendererOptions): MetricsRenderer {
  let cache: Prepared | undefined;
  let droppedTotal = 0;
  let lastDropped = 0;
  const forSnapshot = (snapshot: Snapshot): Prepared => {
    if (cache?.snapshot === snapshot) return cache;
    const m = snapshotMetrics(snapshot, o.maxSessions);
    cache = prepare(snapshot, renderEach(m.families));
    droppedTotal += m.dropped;
    lastDropped = m.dropped;
    return cache;
  };
  // The first look (a partial snapshot) decides nothing: only full reads are rendered.
  const full = (s: Snapshot | undefined): s is Snapshot => s !== undefined && !s.partial;
  let queued = false;
  const unsubscribe = o.store.subscribe((st) => {
    if (queued || !full(st.snapshot) || st.snapshot === cache?.snapshot) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      const s = o.store.getState().snapshot;
      if (full(s)) forSnapshot(s);
    });
  });

  const ownTexts = (snapshot: Snapshot): Map<string, Buffer> => {
    const { health } = o.store.getState();
    const watcher: WatcherCounters = {
      readErrors: o.counters.readErrors(),
      seriesDropped: droppedTotal,
      stateChanges: o.counters.stateChanges(),
      events: o.counters.events(),
      ...(health.lastRefreshMs !== undefined ? { readDurationSeconds: health.lastRefreshMs / 1000 } : {}),
      ...(health.lastPollAt !== undefined ? { lastReadAtMs: health.lastPollAt } : {}),
    };
    const families = exporterMetrics(
      snapshot,
      { version: o.version, maxSessions: o.maxSessions, watcher },
      lastDropped,
    );
    const out = new Map<string, Buffer>();
    for (const [name, text] of renderEach(families)) out.set(name, Buffer.from(text));
    return out;
  };

  return {
    stop: unsubscribe,
    render() {
      const { snapshot } = o.store.getState();
      if (!full(snapshot)) return undefined;
      const { slots } = forSnapshot(snapshot);
      const own = ownTexts(snapshot);
      const mine = (name: FamilyName) => own.get(name) ?? Buffer.alloc(0);
      return {
        plain: slots.map((s) => ('run' in s ? s.run : mine(s.own))),
        async gzip() {
          const parts: GzipPart[] = [];
          for (const s of slots) {
            if (!('run' in s)) parts.push(mine(s.own));
            else {
              const d = await s.deflated;
              if (!d) return undefined;
              parts.push(d);
            }
          }
          return gzipParts(parts);
        },
      };
    },
  };
}
