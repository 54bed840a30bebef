/**
 * serve's connection policy over real sockets (node:http on a loopback port): a scraper's connection
 * is kept between scrapes for longer than Prometheus keeps it idle (so the scraper, not serve, closes
 * it, and a scrape never goes out on a socket serve is closing), and idle connections cannot pile up.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  IDLE_CONNECTIONS_CAP,
  KEEP_ALIVE_MS,
  type MetricsServer,
  startMetricsServer,
} from '../../src/app/metrics-server.js';
import { countWatcherEvents } from '../../src/watchers/metrics-counters.js';
import { createNodeStore } from '../../src/watchers/store.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';

/** Prometheus closes a scrape connection after 5 idle minutes (prometheus/common config/http_config.go). */
const PROMETHEUS_IDLE_MS = 5 * 60_000;

/** A raw HTTP/1.1 client on one socket: each call sends a GET and resolves with the response head. */
function client(
  port: number,
): Promise<{ socket: Socket; get(path: string): Promise<string>; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffered = '';
    let waiting: ((head: string) => void) | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      buffered += d;
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0 || !waiting) return;
      const head = buffered.slice(0, end);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      const w = waiting;
      waiting = undefined;
      w(head);
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => {
      // Writing to a socket serve closed fails (EPIPE): the test reads that from `closed`.
      socket.on('error', () => {});
      resolve({
        socket,
        closed,
        get: (path) =>
          new Promise<string>((done) => {
            waiting = done;
            socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
          }),
      });
    });
  });
}

describe('serve connections', () => {
  const snap = simSnapshot('outage');
  let server: MetricsServer | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await server?.close();
    server = undefined;
  });

  async function serve(): Promise<number> {
    const now = 1_700_000_000_000;
    const store = createNodeStore({ now: () => now });
    const counters = countWatcherEvents(store, 5000);
    const o = { store, counters, version: 't', maxSessions: 5000, refreshMs: 2000, now: () => now };
    store.applySnapshot(snap());
    store.update((st) => ({ health: { ...st.health, lastPollAt: now } }));
    store.flush();
    server = await startMetricsServer(o, '127.0.0.1', 0);
    return server.address().port;
  }

  it('keeps a scraper’s connection longer than Prometheus keeps it idle, and says so', async () => {
    expect(KEEP_ALIVE_MS).toBeGreaterThan(PROMETHEUS_IDLE_MS);
    const c = await client(await serve());
    sockets.push(c.socket);
    const first = await c.get('/metrics');
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(first).toMatch(/^Connection: keep-alive$/im);
    expect(first).toMatch(new RegExp(`^Keep-Alive: timeout=${KEEP_ALIVE_MS / 1000}$`, 'im'));
    // The same socket answers the next scrape.
    expect(await c.get('/healthz')).toMatch(/^HTTP\/1\.1 200/);
  });

  it('closes idle connections once more than the cap are open; the new one is served', async () => {
    const port = await serve();
    const idle = [];
    for (let i = 0; i < IDLE_CONNECTIONS_CAP; i++) {
      const c = await client(port);
      sockets.push(c.socket);
      expect(await c.get('/healthz')).toMatch(/^HTTP\/1\.1 200/);
      idle.push(c);
    }
    const late = await client(port);
    sockets.push(late.socket);
    // Answered: serve has seen the new connection, and closed the idle ones when it did.
    expect(await late.get('/metrics')).toMatch(/^HTTP\/1\.1 200/);
    for (const c of idle) {
      const outcome = await Promise.race([
        c.get('/healthz').then(() => 'answered'),
        c.closed.then(() => 'closed'),
      ]);
      expect(outcome).toBe('closed');
    }
  });
});
