/**
 * serve's /metrics body over real HTTP (node:http on a loopback port): the same bytes as the
 * one-shot exposition of the same snapshot and counters, plain or as one gzip member (the
 * snapshot's part compressed once, the exporter's counters as stored blocks), which zlib reads
 * back to the same bytes. Prometheus itself reads the gzip body in real-prometheus.test.ts.
 */
import { request } from 'node:http';
import { deflateRawSync, gunzipSync, constants as Z } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptsGzip, crc32, deflatePart, gzipParts } from '../../src/app/gzip-parts.js';
import { type MetricsServer, startMetricsServer } from '../../src/app/metrics-server.js';
import { nodeMetrics, renderExposition } from '../../src/engine/metrics/index.js';
import { sessionStateEvent } from '../../src/watchers/events.js';
import { countWatcherEvents } from '../../src/watchers/metrics-counters.js';
import { createNodeStore } from '../../src/watchers/store.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /metrics', () => {
  const snap = simSnapshot('outage');
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve() {
    const now = 1_700_000_000_000;
    const store = createNodeStore({ now: () => now });
    const counters = countWatcherEvents(store, 5000);
    const o = { store, counters, version: 't', maxSessions: 5000, refreshMs: 2000, now: () => now };
    server = await startMetricsServer(o, '127.0.0.1', 0);
    const port = server.address().port;
    expect((await get(port, '/metrics')).status).toBe(503);
    store.applySnapshot(snap());
    const s = snap().sessions[0]!;
    store.pushEvents([sessionStateEvent(s, 'LOGGED_IN', 'FAILED')]);
    store.update((st) => ({ health: { ...st.health, lastPollAt: now } }));
    store.flush();
    // What `metrics` would print for the same snapshot and the same counters.
    const expected = renderExposition(
      nodeMetrics(snap(), {
        version: 't',
        maxSessions: 5000,
        watcher: {
          readErrors: counters.readErrors(),
          seriesDropped: 0,
          stateChanges: counters.stateChanges(),
          events: counters.events(),
          lastReadAtMs: now,
        },
      }).families,
    );
    return { port, expected };
  }

  it('answers plain text without Accept-Encoding and gzip with it: the same exposition', async () => {
    const { port, expected } = await serve();
    const plain = await get(port, '/metrics');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(plain.body.toString()).toBe(expected);
    expect(expected).toContain('iscsi_portal_down{portal="10.0.0.10:3260"} 1');

    const gz = await get(port, '/metrics', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
    expect(gz.body.length).toBeLessThan(plain.body.length);
    expect(gunzipSync(gz.body).toString()).toBe(expected);

    const refused = await get(port, '/metrics', { 'Accept-Encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    const head = await get(port, '/metrics', { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(gz.headers['content-length']);
  });
});

describe('gzip from parts', () => {
  it('reads back as the parts in order: deflated ones, plain ones over a stored block’s 64 KiB, empty ones', async () => {
    const text = (n: number, seed: string) =>
      Buffer.from(Array.from({ length: n }, (_, i) => `${seed}{i="${i}"} ${i % 7}\n`).join(''));
    const a = text(5000, 'iscsi_a');
    const b = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7919) % 251));
    const c = text(10, 'iscsi_c');
    const parts = [await deflatePart(a), b, Buffer.alloc(0), await deflatePart(c), Buffer.from('end\n')];
    const out = gunzipSync(Buffer.concat(gzipParts(parts)));
    expect(out.equals(Buffer.concat([a, b, c, Buffer.from('end\n')]))).toBe(true);
    expect(gunzipSync(Buffer.concat(gzipParts([]))).length).toBe(0);
  });

  it('deflates a part without a final block (a sync flush), so more may follow', async () => {
    const p = await deflatePart(Buffer.from('x'.repeat(1000)));
    expect(p.deflated.subarray(-4).equals(Buffer.from([0, 0, 0xff, 0xff]))).toBe(true);
    const again = deflateRawSync(Buffer.from('x'.repeat(1000)), { finishFlush: Z.Z_SYNC_FLUSH });
    expect(p.deflated.equals(again)).toBe(true);
  });

  it('computes gzip’s CRC-32 (the check value of "123456789" is cbf43926)', () => {
    expect(crc32(Buffer.from('123456789')).toString(16)).toBe('cbf43926');
    expect(crc32(Buffer.from('56789'), crc32(Buffer.from('1234')))).toBe(0xcbf43926);
  });

  it('reads Accept-Encoding as HTTP does', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('identity, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('deflate, br')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
