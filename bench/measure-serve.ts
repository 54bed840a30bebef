/**
 * bench/README.md "serve": the exporter as a DaemonSet runs it — the built CLI's `serve --root
 * <fixture>` in its own process, scraped over loopback HTTP by this one:
 * - scrape latency p50/p99 of GET /metrics at 50 × 4 and 1,000 × 4 sessions (back-to-back scrapes
 *   after the first full read; the watcher polls meanwhile, as in production);
 * - steady RSS of the serve process after a window scraped every 15 s (50 × 4 and 1,000 × 4), and
 *   its CPU share over the 50-session window (/proc/<pid>/stat utime+stime ÷ wall);
 * - `metrics` one-shot wall time beside `status --json` (process start to exit, same fixture).
 * The goal is RSS after 10 minutes; BENCH_SERVE_WINDOW_S sets the window (default 180 s,
 * --quick 45 s), and the figure says which was measured.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { benchArgs, nodeBin, projectDir } from './lib/args.js';
import { figure } from './lib/figure.js';
import { FIXTURE_KUBELET_ROOT, fixtureRoot } from './lib/fixtures.js';
import { log, Output } from './lib/output.js';
import { median, percentile, round } from './lib/stats.js';

const args = benchArgs();
const out = new Output('serve');
const CLK_TCK = 100;
const SCRAPE_EVERY_MS = 15_000;
const WINDOW_MS = (Number(process.env.BENCH_SERVE_WINDOW_S) || (args.quick ? 45 : 180)) * 1000;

function cli(): string {
  const file = join(projectDir(), 'dist', 'cli.js');
  if (!existsSync(file)) {
    const r = spawnSync(nodeBin(), [join(projectDir(), 'scripts', 'build.mjs')], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('npm run build failed');
  }
  return file;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS (MiB) and CPU (ms, user+system) of a process, from /proc. */
function usage(pid: number): { rssMiB: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  return { rssMiB: rss, cpuMs };
}

async function startServe(root: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(
    nodeBin(),
    [cli(), 'serve', '--root', root, '--kubelet-root', FIXTURE_KUBELET_ROOT, '--listen', `127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`);
    try {
      if ((await fetch(`${url}/metrics`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`serve never answered: ${err}`);
    await sleep(100);
  }
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

async function scrapeLatency(url: string, n: number): Promise<{ p50: number; p99: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch(`${url}/metrics`);
    const body = await r.text();
    times.push(performance.now() - t0);
    bytes = body.length;
  }
  return { p50: round(median(times)), p99: round(percentile(times, 99)), bytes };
}

/** Scrapes every 15 s for the window; RSS at the end, CPU over the window. */
async function steady(child: ChildProcess, url: string): Promise<{ rssMiB: number; corePercent: number }> {
  const pid = child.pid!;
  const u0 = usage(pid);
  const t0 = performance.now();
  while (performance.now() - t0 < WINDOW_MS) {
    await (await fetch(`${url}/metrics`)).text();
    await sleep(Math.min(SCRAPE_EVERY_MS, Math.max(0, WINDOW_MS - (performance.now() - t0))));
  }
  const u1 = usage(pid);
  const wall = performance.now() - t0;
  return { rssMiB: round(u1.rssMiB), corePercent: round((100 * (u1.cpuMs - u0.cpuMs)) / wall) };
}

function oneShot(root: string, argv: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(nodeBin(), [cli(), ...argv, '--root', root, '--kubelet-root', FIXTURE_KUBELET_ROOT], {
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
    times.push(performance.now() - t0);
  }
  return round(median(times));
}

const SIZES = [
  { sessions: 50, luns: 4, label: '50 × 4', p99Target: 20, rssTarget: 64, cpuTarget: 0.3, scrapes: 200 },
  { sessions: 1000, luns: 4, label: '1,000 × 4', p99Target: 100, rssTarget: 150, scrapes: 40 },
] as const;

try {
  for (const size of SIZES) {
    const root = fixtureRoot(size.sessions, size.luns);
    const { child, url } = await startServe(root);
    try {
      const lat = await scrapeLatency(url, args.quick ? Math.ceil(size.scrapes / 4) : size.scrapes);
      log(`${size.label}: ${lat.bytes} bytes per scrape`);
      out.add(
        figure({
          id: `serve.${size.sessions}.scrape-p50`,
          section: 'serve',
          label: `${size.label}: GET /metrics p50`,
          value: lat.p50,
          unit: 'ms',
          note: 'back-to-back scrapes over loopback of `serve --root <fixture>` (built CLI, own process) after its first full read',
          detail: { bytes: lat.bytes },
        }),
      );
      out.add(
        figure({
          id: `serve.${size.sessions}.scrape-p99`,
          section: 'serve',
          label: `${size.label}: GET /metrics p99`,
          value: lat.p99,
          unit: 'ms',
          target: { op: '<=', value: size.p99Target },
        }),
      );
      const s = await steady(child, url);
      const window = `${Math.round(WINDOW_MS / 1000)} s`;
      out.add(
        figure({
          id: `serve.${size.sessions}.rss`,
          section: 'serve',
          label: `${size.label}: serve RSS after ${window} scraped every 15 s`,
          value: s.rssMiB,
          unit: 'MiB',
          target: { op: '<=', value: size.rssTarget },
          note: `VmRSS of the serve process; the goal is after 10 minutes (BENCH_SERVE_WINDOW_S=600), this run measured ${window}`,
        }),
      );
      if ('cpuTarget' in size)
        out.add(
          figure({
            id: `serve.${size.sessions}.cpu`,
            section: 'serve',
            label: `${size.label}: serve CPU, idle, scraped every 15 s (${window})`,
            value: s.corePercent,
            unit: '% of a core',
            target: { op: '<=', value: size.cpuTarget },
            note: '/proc/<pid>/stat utime+stime over the window ÷ wall time; default 2 s poll',
          }),
        );
    } finally {
      await stop(child);
    }
    const runs = args.quick ? 1 : 3;
    const status = oneShot(join(root), ['status', '--json'], runs);
    const metrics = oneShot(join(root), ['metrics'], runs);
    out.add(
      figure({
        id: `serve.${size.sessions}.oneshot-status`,
        section: 'serve',
        label: `${size.label}: status --json one-shot`,
        value: status,
        unit: 'ms (process start to exit, median)',
      }),
    );
    out.add(
      figure({
        id: `serve.${size.sessions}.oneshot-metrics`,
        section: 'serve',
        label: `${size.label}: metrics one-shot`,
        value: metrics,
        unit: `ms (${round(metrics / status)} × status --json)`,
      }),
    );
  }
} catch (e) {
  out.skip((e as Error).message);
} finally {
  out.write();
}
