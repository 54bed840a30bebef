/**
 * `serve`'s HTTP side (node:http): GET /metrics answers with the store's current snapshot (a scrape
 * never reads the node: the watcher keeps the store current), rendered and compressed once per
 * snapshot (metrics-renderer.ts), gzip when the scraper accepts it (Prometheus does); GET /healthz
 * says whether the watcher's reads work.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { EXPOSITION_CONTENT_TYPE } from '../engine/metrics/index.js';
import type { MetricsCounters } from '../watchers/metrics-counters.js';
import type { NodeStore } from '../watchers/store.js';
import { acceptsGzip } from './gzip-parts.js';
import { createMetricsRenderer, type MetricsRenderer } from './metrics-renderer.js';

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
  const body = renderer.render();
  if (body === undefined) return reply(res, 503, 'no full read of the node yet\n');
  if (!acceptsGzip(req.headers['accept-encoding'])) return send(req, res, body.plain);
  void body.gzip().then(
    (gz) => send(req, res, gz ?? body.plain, gz ? 'gzip' : undefined),
    () => send(req, res, body.plain),
  );
}

function send(req: IncomingMessage, res: ServerResponse, parts: readonly Buffer[], encoding?: string): void {
  if (res.destroyed) return;
  const length = parts.reduce((n, p) => n + p.length, 0);
  res.writeHead(200, {
    'Content-Type': EXPOSITION_CONTENT_TYPE,
    'Content-Length': length,
    Vary: 'Accept-Encoding',
    ...(encoding ? { 'Content-Encoding': encoding } : {}),
  });
  if (req.method === 'HEAD') return void res.end();
  res.cork();
  for (const p of parts) res.write(p);
  res.uncork();
  res.end();
}

export interface MetricsServer {
  /** The address actually bound (port 0 picks a free one). */
  address(): { host: string; port: number };
  /** Stops listening and ends open connections (keep-alive scrapers too). */
  close(): Promise<void>;
}

/**
 * How long an idle kept-alive connection stays open. Prometheus keeps its scrape connection and
 * closes it after 5 idle minutes ("above the maximum sane scrape interval": prometheus/common
 * config/http_config.go, idleConnTimeout), node_exporter never closes one. Node's default (5 s) is
 * shorter than any scrape interval, so every scrape raced serve closing the socket it was sent on
 * (Go retries such a GET; other clients fail with "socket hang up"). Longer than the scraper's own
 * limit, so the scraper closes first and a scrape never meets a socket serve is closing.
 */
export const KEEP_ALIVE_MS = 310_000;
/** A request's headers, and the whole request, within this: a slow client cannot hold a socket. */
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * Open connections above which serve closes its idle ones (a client reconnects for its next scrape;
 * Go retries a GET whose reused connection closed), so clients that open connections and leave
 * them idle cannot pile up for the keep-alive time. A Prometheus pair, an agent and a few probes
 * stay below it.
 */
export const IDLE_CONNECTIONS_CAP = 16;
/** Connections at most: beyond it a new one is closed at once (each held ≤ REQUEST_TIMEOUT_MS busy). */
const MAX_CONNECTIONS = 64;

/** Listens on host:port (host '' for every address). */
export function startMetricsServer(
  o: MetricsServerOptions,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const renderer = createMetricsRenderer(o);
  // Node checks the request timeouts on this interval (default 30 s, so a slow client held a
  // socket for up to 40 s): within 15 s now, for one timer tick every 5 s.
  const server: Server = createServer({ connectionsCheckingInterval: 5_000 }, (req, res) =>
    handle(o, renderer, req, res),
  );
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.maxConnections = MAX_CONNECTIONS;
  let open = 0;
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
    if (open > IDLE_CONNECTIONS_CAP) server.closeIdleConnections();
  });
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
