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
  type MetricFamily,
  renderFamily,
  snapshotMetrics,
  type WatcherCounters,
} from '../engine/metrics/index.js';
import type { Snapshot } from '../engine/model.js';
import type { MetricsCounters } from '../watchers/metrics-counters.js';
import type { NodeStore } from '../watchers/store.js';

export interface MetricsServerOptions {
  store: NodeStore;
  counters: MetricsCounters;
  version: string;
  maxSessions: number;
  /** The watcher's poll interval, ms: /healthz fails when the last read is older than three. */
  refreshMs: number;
  /** Host clock, ms (the store's stamps use it). */
  now(): number;
}

export interface Health {
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
  chunks: Map<string, string>;
}

/** Renders the exposition from the store (cached per snapshot). */
export function createMetricsRenderer(o: MetricsServerOptions): () => string | undefined {
  let cache: Rendered | undefined;
  let droppedTotal = 0;
  let lastDropped = 0;
  return () => {
    const { snapshot, health } = o.store.getState();
    // The first look (a partial snapshot) decides nothing: wait for the full read.
    if (!snapshot || snapshot.partial) return undefined;
    if (cache?.snapshot !== snapshot) {
      const m = snapshotMetrics(snapshot, o.maxSessions);
      cache = { snapshot, chunks: new Map(m.families.map((f) => [f.name, renderFamily(f)])) };
      droppedTotal += m.dropped;
      lastDropped = m.dropped;
    }
    const watcher: WatcherCounters = {
      readErrors: o.counters.readErrors(),
      seriesDropped: droppedTotal,
      stateChanges: o.counters.stateChanges(),
      events: o.counters.events(),
      ...(health.lastRefreshMs !== undefined ? { readDurationSeconds: health.lastRefreshMs / 1000 } : {}),
      ...(health.lastPollAt !== undefined ? { lastReadAtMs: health.lastPollAt } : {}),
    };
    const own: MetricFamily[] = exporterMetrics(
      snapshot,
      { version: o.version, maxSessions: o.maxSessions, watcher },
      lastDropped,
    );
    const chunks = new Map(cache.chunks);
    for (const f of own) chunks.set(f.name, renderFamily(f));
    return [...chunks.keys()]
      .sort()
      .map((k) => chunks.get(k)!)
      .join('');
  };
}

function reply(res: ServerResponse, code: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function handle(
  o: MetricsServerOptions,
  render: () => string | undefined,
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
  const text = render();
  if (text === undefined) return reply(res, 503, 'no full read of the node yet\n');
  reply(res, 200, text, EXPOSITION_CONTENT_TYPE);
}

export interface MetricsServer {
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
  const render = createMetricsRenderer(o);
  const server: Server = createServer((req, res) => handle(o, render, req, res));
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
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
