/**
 * `serve`'s HTTP side (node:http): GET /metrics renders the store's current snapshot (a scrape never
 * reads the node: the watcher keeps the store current), GET /healthz says whether the watcher's
 * reads work. Each snapshot's families are rendered once and kept until the store holds another;
 * only the exporter's own families (counters, last read) are rendered per scrape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  EXPOSITION_CONTENT_TYPE,
  exporterMetrics,
  renderEach,
  snapshotMetrics,
  type WatcherCounters,
} from '../engine/metrics/index.js';
import type { Snapshot } from '../engine/model.js';
import type { MetricsCounters } from '../watchers/metrics-counters.js';
import type { NodeStore } from '../watchers/store.js';

interface MetricsServerOptions {
  store: NodeStore;
  counters: MetricsCounters;
  version: string;
  maxSessions: number;
  /** The watcher's poll interval, ms: /healthz fails when the last read is older than three. */
  refreshMs: number;
  /** Host clock, ms (the store's stamps use it). */
  now(): number;
}

interface Health {
  ok: boolean;
  reason: string;
}

/** 200 while reads work; 503 with why when the last read failed, none happened yet, or it is stale. */
export function metricsHealth(o: MetricsServerOptions): Health {
  const failed = o.counters.lastReadError();
  if (failed) return { ok: false, reason: `last read failed: ${failed}` };
  const { snapshot, health } = o.store.getState();
  const at = health.lastPollAt ?? health.lastRefreshAt;
  if (!snapshot || at === undefined) return { ok: false, reason: 'no read of the node yet' };
  const age = o.now() - at;
  if (age > 3 * o.refreshMs)
    return {
      ok: false,
      reason: `last read ${Math.round(age / 1000)} s ago, more than three intervals (${o.refreshMs / 1000} s)`,
    };
  return { ok: true, reason: 'ok' };
}

interface Rendered {
  snapshot: Snapshot;
  chunks: Map<string, Buffer>;
}

interface MetricsRenderer {
  /** The exposition as parts in family order (a snapshot's parts are kept, not copied per scrape). */
  render(): Buffer[] | undefined;
  stop(): void;
}

/**
 * Renders the exposition from the store. A snapshot's families are rendered once, soon after the
 * store publishes it (so a scrape rarely waits for it: ~24,000 series at 1,000 × 4), and kept as
 * buffers until the next; per scrape only the exporter's own families are rendered.
 */
function createMetricsRenderer(o: MetricsServerOptions): MetricsRenderer {
  let cache: Rendered | undefined;
  let droppedTotal = 0;
  let lastDropped = 0;
  const forSnapshot = (snapshot: Snapshot): Rendered => {
    if (cache?.snapshot === snapshot) return cache;
    const m = snapshotMetrics(snapshot, o.maxSessions);
    const chunks = new Map<string, Buffer>();
    for (const [name, text] of renderEach(m.families)) chunks.set(name, Buffer.from(text));
    cache = { snapshot, chunks };
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
  return {
    stop: unsubscribe,
    render() {
      const { snapshot, health } = o.store.getState();
      if (!full(snapshot)) return undefined;
      const node = forSnapshot(snapshot);
      const watcher: WatcherCounters = {
        readErrors: o.counters.readErrors(),
        seriesDropped: droppedTotal,
        stateChanges: o.counters.stateChanges(),
        events: o.counters.events(),
        ...(health.lastRefreshMs !== undefined ? { readDurationSeconds: health.lastRefreshMs / 1000 } : {}),
        ...(health.lastPollAt !== undefined ? { lastReadAtMs: health.lastPollAt } : {}),
      };
      const own = renderEach(
        exporterMetrics(snapshot, { version: o.version, maxSessions: o.maxSessions, watcher }, lastDropped),
      );
      const chunks = new Map(node.chunks);
      for (const [name, text] of own) chunks.set(name, Buffer.from(text));
      return [...chunks.keys()].sort().map((k) => chunks.get(k)!);
    },
  };
}

function reply(res: ServerResponse, code: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function handle(
  o: MetricsServerOptions,
  renderer: MetricsRenderer,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/metrics' && path !== '/healthz')
    return reply(res, 404, 'not found: try /metrics or /healthz\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return reply(res, 405, 'method not allowed: GET only\n');
  }
  if (path === '/healthz') {
    const h = metricsHealth(o);
    return reply(res, h.ok ? 200 : 503, `${h.reason.replace(/[\r\n]+/g, ' ')}\n`);
  }
  const parts = renderer.render();
  if (parts === undefined) return reply(res, 503, 'no full read of the node yet\n');
  const length = parts.reduce((n, p) => n + p.length, 0);
  res.writeHead(200, { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Content-Length': length });
  if (req.method === 'HEAD') return res.end();
  for (const p of parts) res.write(p);
  res.end();
}

interface MetricsServer {
  /** The address actually bound (port 0 picks a free one). */
  address(): { host: string; port: number };
  /** Stops listening and ends open connections (keep-alive scrapers too). */
  close(): Promise<void>;
}

/** Listens on host:port (host '' for every address). */
export function startMetricsServer(
  o: MetricsServerOptions,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const renderer = createMetricsRenderer(o);
  const server: Server = createServer((req, res) => handle(o, renderer, req, res));
  // A scraper that never finishes its request must not hold a stop.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, ...(host ? { host } : {}) }, () => {
      server.off('error', reject);
      resolve({
        address() {
          const a = server.address();
          return typeof a === 'object' && a ? { host: a.address, port: a.port } : { host, port };
        },
        close: () =>
          new Promise<void>((done) => {
            renderer.stop();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
