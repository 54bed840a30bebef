/**
 * A real Prometheus (Debian's `prometheus`, from .ci/run) scraping `serve --demo outage` with the
 * shipped rule file: the values it stores are the snapshot's, the portal-down alert fires, and it
 * resolves once the simulated portal is back. And `metrics --textfile` read by a real
 * `prometheus-node-exporter` textfile collector. Every wait polls an HTTP API; nothing sleeps.
 *
 * Expected values come from the scenario's definition (src/sim/scenarios/outage.ts): controller A
 * (10.0.0.10:3260) is down under four volumes (postgres-data, redis-data, elastic-0, elastic-1)
 * and an admin's unused hand login (scratch-old),
 * controller B (10.0.0.11:3260) serves two (minio-0, minio-1).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';
import { buildCliBundle } from '../helpers/cli-bundle.js';
import { freePort, NODE_EXPORTER, PROMETHEUS, pollFor, requireTool } from '../helpers/prometheus-tools.js';

const RULES = join(__dirname, '..', '..', 'deploy', 'monitoring', 'iscsi-console-rules.yaml');
const PORTAL_A = '10.0.0.10:3260';
const PORTAL_B = '10.0.0.11:3260';
const IQN = 'iqn.2026-01.lab.example:';
const ON_A = ['elastic-0', 'elastic-1', 'postgres-data', 'redis-data', 'scratch-old'];
const ON_B = ['minio-0', 'minio-1'];

const dir = mkdtempSync(join(tmpdir(), 'ic-prometheus-'));
const children: ChildProcess[] = [];

function start(cmd: string, args: string[]): ChildProcess & { log: () => string } {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  children.push(child);
  return Object.assign(child, { log: () => log });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Vector {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(base: string, q: string): Promise<Vector[]> {
  const r = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await r.json()) as { status: string; data: { result: Vector[] } };
  if (body.status !== 'success') throw new Error(`query ${q}: ${JSON.stringify(body)}`);
  return body.data.result;
}

/** label value → sample value, for one label of a vector. */
function byLabel(v: Vector[], label: string): Record<string, string> {
  return Object.fromEntries(v.map((s) => [s.metric[label]!, s.value[1]]));
}

describe('serve --demo outage scraped by a real Prometheus with the shipped rules', () => {
  let serve: ReturnType<typeof start>;
  let exporter: string;
  let prom: string;

  beforeAll(async () => {
    requireTool(PROMETHEUS);
    const cli = await buildCliBundle(dir);
    const servePort = await freePort();
    exporter = `http://127.0.0.1:${servePort}`;
    serve = start(process.execPath, [
      cli,
      'serve',
      '--demo',
      'outage',
      '--listen',
      `127.0.0.1:${servePort}`,
      '--refresh',
      '1',
    ]);
    await pollFor('serve /healthz 200', async () =>
      (await fetch(`${exporter}/healthz`)).status === 200 ? true : undefined,
    );
    // The shipped rules, with every `for:` shortened: the expressions, labels and the aggregation
    // by portal are what this test proves; the hold times are promtool's tests (test/monitoring/rules).
    writeFileSync(
      join(dir, 'rules.yaml'),
      readFileSync(RULES, 'utf8').replace(/^(\s+for:\s*)\S+/gm, '$1' + '1s'),
    );
    const promPort = await freePort();
    prom = `http://127.0.0.1:${promPort}`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${join(dir, 'rules.yaml')}`,
        'scrape_configs:',
        '  - job_name: iscsi-console',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${servePort}']`,
        '',
      ].join('\n'),
    );
    start(PROMETHEUS, [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ]);
    await pollFor('Prometheus ready', async () => ((await fetch(`${prom}/-/ready`)).ok ? true : undefined));
  }, 180_000);

  it('answers /metrics, /healthz; 404 and 405 with one line', async () => {
    const m = await fetch(`${exporter}/metrics`);
    expect(m.status).toBe(200);
    expect(m.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await m.text()).toContain(`iscsi_portal_down{portal="${PORTAL_A}"} 1`);
    const h = await fetch(`${exporter}/healthz`);
    expect([h.status, await h.text()]).toEqual([200, 'ok\n']);
    const nf = await fetch(`${exporter}/other`);
    expect(nf.status).toBe(404);
    expect((await nf.text()).split('\n').filter(Boolean)).toHaveLength(1);
    const post = await fetch(`${exporter}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect((await post.text()).split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('Prometheus stores the snapshot: sessions on A FAILED, on B LOGGED_IN; portal A down, B up', async () => {
    const down = await pollFor('iscsi_portal_down in Prometheus', async () => {
      const v = await query(prom, 'iscsi_portal_down');
      return v.length === 2 ? v : undefined;
    });
    expect(byLabel(down, 'portal')).toEqual({ [PORTAL_A]: '1', [PORTAL_B]: '0' });
    const failed = await query(prom, 'iscsi_session_state{state="FAILED"} == 1');
    expect(failed.map((s) => s.metric.target).sort()).toEqual(ON_A.map((n) => IQN + n));
    expect(new Set(failed.map((s) => s.metric.portal))).toEqual(new Set([PORTAL_A]));
    const up = await query(prom, 'iscsi_session_state{state="LOGGED_IN"} == 1');
    expect(up.map((s) => s.metric.target).sort()).toEqual(ON_B.map((n) => IQN + n));
    const sessions = await query(prom, 'iscsi_portal_sessions');
    expect(byLabel(sessions, 'portal')).toEqual({ [PORTAL_A]: '5', [PORTAL_B]: '2' });
  }, 120_000);

  it('the portal-down alert fires for portal A only, and resolves when the portal is back', async () => {
    const firing = await pollFor(
      'ISCSIPortalDown firing',
      async () => {
        const v = await query(prom, 'ALERTS{alertname="ISCSIPortalDown",alertstate="firing"}');
        return v.length > 0 ? v : undefined;
      },
      120_000,
    );
    expect(firing.map((a) => a.metric.portal)).toEqual([PORTAL_A]);
    expect(firing[0]!.metric.severity).toBe('critical');
    // The demo's way to bring a simulated portal back (serve --help): iscsid logs the sessions in.
    serve.kill('SIGUSR2');
    await pollFor(
      'portal A up in Prometheus',
      async () => {
        const v = await query(prom, `iscsi_portal_down{portal="${PORTAL_A}"} == 0`);
        return v.length === 1 ? true : undefined;
      },
      120_000,
    );
    const logged = await pollFor('sessions LOGGED_IN', async () => {
      const v = await query(prom, 'iscsi_session_state{state="LOGGED_IN"} == 1');
      return v.length === ON_A.length + ON_B.length ? v : undefined;
    });
    expect(logged.map((s) => s.metric.target).sort()).toEqual([...ON_A, ...ON_B].map((n) => IQN + n).sort());
    await pollFor(
      'ISCSIPortalDown resolved',
      async () =>
        (await query(prom, 'ALERTS{alertname="ISCSIPortalDown"}')).length === 0 ? true : undefined,
      120_000,
    );
  }, 300_000);

  it('stops on SIGTERM with exit 0', async () => {
    serve.kill('SIGTERM');
    expect(await exited(serve)).toBe(0);
  }, 30_000);
});

describe('metrics --textfile read by a real node_exporter textfile collector', () => {
  it('exports the file with the snapshot values and no scrape error', async () => {
    requireTool(NODE_EXPORTER);
    const textDir = join(dir, 'textfile');
    rmSync(textDir, { recursive: true, force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(textDir);
    const file = join(textDir, 'iscsi.prom');
    const c = captureOutput();
    expect(await main(['metrics', '--demo', 'outage', '--textfile', file], c), c.err).toBe(0);
    expect(c.out).toBe('');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const port = await freePort();
    const ne = start(NODE_EXPORTER, [
      '--collector.disable-defaults',
      '--collector.textfile',
      `--collector.textfile.directory=${textDir}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ]);
    const text = await pollFor(`node_exporter on ${port} (${ne.log()})`, async () => {
      const r = await fetch(`http://127.0.0.1:${port}/metrics`);
      return r.ok ? r.text() : undefined;
    });
    expect(text).toContain(`iscsi_portal_down{portal="${PORTAL_A}"} 1`);
    expect(text).toContain(`iscsi_portal_down{portal="${PORTAL_B}"} 0`);
    for (const n of ON_A)
      expect(text).toContain(
        `iscsi_session_state{iface="default",portal="${PORTAL_A}",state="FAILED",target="${IQN}${n}"} 1`,
      );
    expect(text).toMatch(/^node_textfile_scrape_error 0$/m);
    expect(text).toMatch(/^node_textfile_mtime_seconds\{file="[^"]*iscsi\.prom"\} /m);
  }, 120_000);
});
