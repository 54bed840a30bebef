/**
 * The probe's TCP leg on real local sockets (Host.connectTcp of the real FsHost): a portal that
 * refuses, one that accepts and never says a word, one that accepts and drops the connection, and
 * one whose SYNs nobody answers (the bound). A `--root` tree opens no socket at all.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';

const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function listen(onConnection: (s: net.Socket) => void, backlog?: number): Promise<number> {
  const server = net.createServer(onConnection);
  servers.push(server);
  return new Promise((resolve) => {
    server.listen({ host: '127.0.0.1', port: 0, ...(backlog === undefined ? {} : { backlog }) }, () =>
      resolve((server.address() as net.AddressInfo).port),
    );
  });
}

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const port = await listen(() => {});
  await new Promise((r) => servers.pop()!.close(r));
  return port;
}

const real = new FsHost({ root: '/', runner: { mode: 'direct' } });

describe('Host.connectTcp on real sockets', () => {
  it('a portal that refuses: failed with ECONNREFUSED', async () => {
    const r = await real.connectTcp('127.0.0.1', await closedPort(), 5_000);
    expect(r).toMatchObject({ outcome: 'failed', code: 'ECONNREFUSED' });
  });

  it('a portal that accepts and never answers: connected (the connect alone says nothing more)', async () => {
    const held: net.Socket[] = [];
    const port = await listen((s) => held.push(s));
    const r = await real.connectTcp('127.0.0.1', port, 5_000);
    expect(r.outcome).toBe('connected');
    for (const s of held) s.destroy();
  });

  it('a portal that drops each connection: connected, and closed again by us', async () => {
    let seen = 0;
    const port = await listen((s) => {
      seen++;
      s.destroy();
    });
    const r = await real.connectTcp('127.0.0.1', port, 5_000);
    expect(r.outcome).toBe('connected');
    await expect.poll(() => seen).toBe(1);
  });

  it('a SYN nobody answers is given up at the bound, not waited out', async () => {
    // A listener that never accepts, its queue (backlog 1) full: Linux drops further SYNs
    // (net.ipv4.tcp_abort_on_overflow=0), so the next connect is never answered.
    const blocker = net.createServer();
    servers.push(blocker);
    const port: number = await new Promise((resolve) =>
      blocker.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () =>
        resolve((blocker.address() as net.AddressInfo).port),
      ),
    );
    // Stop accepting at the libuv level (Node has no public pause for a listener).
    (blocker as unknown as { _handle: { onconnection: unknown } })._handle.onconnection = () => {};
    for (let i = 0; i < 8; i++) {
      const s = net.connect({ host: '127.0.0.1', port });
      s.on('error', () => {});
      sockets.push(s);
    }
    const r = await real.connectTcp('127.0.0.1', port, 300);
    expect(r).toMatchObject({ outcome: 'failed', code: 'ETIMEDOUT' });
  });

  it('a --root tree opens no socket', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-root-'));
    try {
      const tree = new FsHost({ root: dir, runner: { mode: 'direct' } });
      const r = await tree.connectTcp('127.0.0.1', await closedPort(), 5_000);
      expect(r.outcome).toBe('not-allowed');
      expect(r.detail).toContain('--root');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
