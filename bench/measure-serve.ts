/**
 * bench/README.md "serve": the exporter as the DaemonSet runs it — the built CLI's `serve --root
 * <fixture>` in its own process, with the Node options deploy/daemonset.yaml sets (NODE_OPTIONS),
 * scraped over loopback HTTP by this one as Prometheus scrapes: a kept-alive connection,
 * `Accept-Encoding: gzip`, the body read to its end and decompressed.
 * - scrape latency p50/p99 of GET /metrics at 50 × 4 and 1,000 × 4 sessions (back-to-back scrapes
 *   after the first full read, each size with its serve the only one running; the watcher polls
 *   meanwhile, as in production), and serve's own CPU per scrape (load-independent);
 * - serve's event-loop delay over those scrapes, from inside it (serve-hook.ts: monitorEventLoopDelay
 *   max and p99), and the longest synchronous slice of the watcher's sysfs pass in CPU time, in this
 *   process (both say what a scrape can wait for, the second unblurred by the machine's load);
 * - steady RSS of both serve processes after a soak scraped every 15 s (they soak side by side; the
 *   goal is after 10 minutes: the full run soaks 600 s, --quick 60 s and says so), and the idle
 *   CPU share at 50 × 4 over the soak's steady part (after a settle period past the start-up reads);
 * - `metrics` one-shot wall time beside `status --json`, and `check outage` at 1,000 × 4 within
 *   node-problem-detector's 5 s timeout (wall and CPU time: the CPU time is what a quiet machine's
 *   wall time would be for this single-threaded read).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FsHost } from '../src/engine/host/fs-host.js';
import { PROBE_SLICE_READS, SysfsProber } from '../src/watchers/sysfs-probe.js';
import { benchArgs, nodeBin, projectDir } from './lib/args.js';
import { figure } from './lib/figure.js';
import { FIXTURE_KUBELET_ROOT, fixtureRoot } from './lib/fixtures.js';
import { log, Output } from './lib/output.js';
import { median, percentile, round } from './lib/stats.js';

const args = benchArgs();
const out = new Output('serve');
const CLK_TCK = 100;
const SCRAPE_EVERY_MS = 15_000;
const SOAK_MS = (Number(process.env.BENCH_SERVE_WINDOW_S) || (args.quick ? 60 : 600)) * 1000;
/** The start of the soak not counted in the CPU share: JIT compilation, the topology read, the first GCs. */
const SETTLE_MS = Math.min(60_000, SOAK_MS / 4);

function cli(): string {
  const file = join(projectDir(), 'dist', 'cli.js');
  if (!existsSync(file)) {
    const r = spawnSync(nodeBin(), [join(projectDir(), 'scripts', 'build.mjs')], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('npm run build failed');
  }
  return file;
}

/** The NODE_OPTIONS the DaemonSet's metrics container sets: the bench runs serve as deployed. */
function deployedNodeOptions(): string {
  const yaml = readFileSync(join(projectDir(), 'deploy', 'daemonset.yaml'), 'utf8');
  const m = /- name: NODE_OPTIONS\s*\n\s*value:\s*"?([^"\n]*)"?/.exec(yaml);
  return m?.[1]?.trim() ?? '';
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

/** RSS (MiB: total, anonymous, file-backed) and CPU (ms, user+system) of a process, from /proc. */
function usage(pid: number): { rssMiB: number; anonMiB: number; fileMiB: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  return { rssMiB: kb('VmRSS') / 1024, anonMiB: kb('RssAnon') / 1024, fileMiB: kb('RssFile') / 1024, cpuMs };
}

/** CPU time (ms) of this process's waited-for children (/proc/self/stat cutime + cstime). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
}

interface Serve {
  child: ChildProcess;
  port: number;
  agent: Agent;
}

/** serve-hook.ts's bundle (bench/run.mjs builds it), or undefined when it could not be built. */
const HOOK = process.env.BENCH_HELPER_SERVE_HOOK;
const HOOK_OUT = join(projectDir(), '.cache', 'bench', 'serve-hook');

interface LoopWindow {
  windowMs: number;
  /** Whether the event-loop delay was monitored in this window (serve-hook.ts alternates). */
  monitored: boolean;
  loop: { samples: number; maxMs: number; p99Ms: number; p50Ms: number; meanMs: number };
  /** Garbage collections in the window: count, total and longest pause (ms). */
  gc: { count: number; totalMs: number; maxMs: number };
  memory: NodeJS.MemoryUsage;
  heap: { mallocedMemory: number; externalMemory: number };
}

/**
 * Ends serve's current window (serve-hook.ts: its event-loop delay since the last call, its memory
 * now) and starts the next; undefined without the hook. The first call starts a monitored window,
 * the second ends it, and so on.
 */
async function loopWindow(s: Serve): Promise<LoopWindow | undefined> {
  if (!HOOK) return undefined;
  const file = `${HOOK_OUT}.${s.child.pid}.json`;
  rmSync(file, { force: true });
  s.child.kill('SIGUSR2');
  const deadline = performance.now() + 30_000;
  while (!existsSync(file)) {
    if (performance.now() > deadline || s.child.exitCode !== null) return undefined;
    await sleep(20);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as LoopWindow;
}

/**
 * One GET as Prometheus does it; resolves with the decoded body's length and the bytes on the wire.
 * Like Go's transport (Prometheus), a GET that went out on a kept-alive connection the server had
 * closed meanwhile (reset or hung up before any response) is sent once more on a new connection: the
 * agent's own expiry of idle sockets is a timer, late when this process is busy.
 */
function scrape(
  s: Serve,
  gzip = true,
  retried = false,
): Promise<{ bytes: number; wire: number; status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: s.port,
        path: '/metrics',
        agent: s.agent,
        headers: gzip ? { 'Accept-Encoding': 'gzip' } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const plain = res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
          resolve({ bytes: plain.length, wire: body.length, status: res.statusCode ?? 0 });
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      const closedUnderUs = req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
      if (closedUnderUs && !retried) resolve(scrape(s, gzip, true));
      else reject(e);
    });
    req.end();
  });
}

async function startServe(root: string, nodeOptions: string): Promise<Serve> {
  const port = await freePort();
  const child = spawn(
    nodeBin(),
    [
      ...(HOOK ? ['--import', HOOK] : []),
      cli(),
      'serve',
      '--root',
      root,
      '--kubelet-root',
      FIXTURE_KUBELET_ROOT,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: nodeOptions, ...(HOOK ? { BENCH_SERVE_HOOK_OUT: HOOK_OUT } : {}) },
    },
  );
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const s: Serve = { child, port, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
  const deadline = performance.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`);
    try {
      if ((await scrape(s)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`serve never answered: ${err}`);
    await sleep(100);
  }
  return s;
}

async function stop(s: Serve): Promise<void> {
  s.agent.destroy();
  if (s.child.exitCode !== null) return;
  const done = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await done;
}

interface Latency {
  p50: number;
  p99: number;
  bytes: number;
  wire: number;
  cpuPerScrapeMs: number;
}

/** Back-to-back scrapes; serve's CPU per scrape counts its poll ticks meanwhile too (an upper bound). */
async function scrapeLatency(s: Serve, n: number, gzip: boolean): Promise<Latency> {
  const times: number[] = [];
  let bytes = 0;
  let wire = 0;
  const cpu0 = usage(s.child.pid!).cpuMs;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await scrape(s, gzip);
    times.push(performance.now() - t0);
    bytes = r.bytes;
    wire = r.wire;
  }
  const cpuPerScrapeMs = round((usage(s.child.pid!).cpuMs - cpu0) / n);
  return { p50: round(median(times)), p99: round(percentile(times, 99)), bytes, wire, cpuPerScrapeMs };
}

interface Soak {
  rssMiB: number;
  anonMiB: number;
  fileMiB: number;
  peakRssMiB: number;
  corePercent: number;
}

/** Scrapes every serve every 15 s for SOAK_MS, side by side; RSS at the end, CPU after SETTLE_MS. */
async function soak(all: Serve[]): Promise<Soak[]> {
  const t0 = performance.now();
  const peak = all.map(() => 0);
  let settled: { at: number; cpu: number[] } | undefined;
  while (performance.now() - t0 < SOAK_MS) {
    for (const s of all) await scrape(s);
    all.forEach((s, i) => {
      peak[i] = Math.max(peak[i]!, usage(s.child.pid!).rssMiB);
    });
    if (!settled && performance.now() - t0 >= SETTLE_MS)
      settled = { at: performance.now(), cpu: all.map((s) => usage(s.child.pid!).cpuMs) };
    await sleep(Math.min(SCRAPE_EVERY_MS, Math.max(0, SOAK_MS - (performance.now() - t0))));
  }
  const wall = performance.now() - (settled?.at ?? t0);
  return all.map((s, i) => {
    const u = usage(s.child.pid!);
    const cpu0 = settled?.cpu[i] ?? 0;
    return {
      rssMiB: round(u.rssMiB),
      anonMiB: round(u.anonMiB),
      fileMiB: round(u.fileMiB),
      peakRssMiB: round(Math.max(peak[i]!, u.rssMiB)),
      corePercent: round((100 * (u.cpuMs - cpu0)) / wall),
    };
  });
}

/** Process start to exit (median) and CPU time (median) of a one-shot command. */
function oneShot(root: string, argv: string[], runs: number, okStatus: number[] = [0]) {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = childrenCpuMs();
    const t0 = performance.now();
    const r = spawnSync(nodeBin(), [cli(), ...argv, '--root', root, '--kubelet-root', FIXTURE_KUBELET_ROOT], {
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
    times.push(performance.now() - t0);
    cpu.push(childrenCpuMs() - c0);
    if (!okStatus.includes(r.status ?? -1))
      throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  return { wall: round(median(times)), cpu: round(median(cpu)) };
}

const SIZES = [
  { sessions: 50, luns: 4, label: '50 × 4', p99Target: 20, rssTarget: 64, cpuTarget: 0.3, scrapes: 200 },
  { sessions: 1000, luns: 4, label: '1,000 × 4', p99Target: 100, rssTarget: 150, scrapes: 60 },
] as const;

const load = () => loadavg()[0]!.toFixed(2);

function latencyFigures(
  size: (typeof SIZES)[number],
  gz: Latency,
  plain: Latency,
  nodeOptions: string,
): void {
  const how =
    `back-to-back scrapes over a kept-alive loopback connection, Accept-Encoding: gzip as Prometheus sends, body read ` +
    `and gunzipped (${gz.wire} bytes on the wire, ${gz.bytes} of text); serve = built CLI in its own process` +
    `${nodeOptions ? ` with NODE_OPTIONS="${nodeOptions}" (deploy/daemonset.yaml)` : ''}, after its first full read; load average ${load()}`;
  const id = `serve.${size.sessions}`;
  out.add(
    figure({
      id: `${id}.scrape-p50`,
      section: 'serve',
      label: `${size.label}: GET /metrics p50`,
      value: gz.p50,
      unit: 'ms',
      note: how,
      detail: { bytes: gz.bytes, wire: gz.wire },
    }),
  );
  out.add(
    figure({
      id: `${id}.scrape-p99`,
      section: 'serve',
      label: `${size.label}: GET /metrics p99`,
      value: gz.p99,
      unit: 'ms',
      target: { op: '<=', value: size.p99Target },
    }),
  );
  out.add(
    figure({
      id: `${id}.scrape-cpu`,
      section: 'serve',
      label: `${size.label}: serve CPU per scrape`,
      value: gz.cpuPerScrapeMs,
      unit: `ms (gzip; ${plain.cpuPerScrapeMs} ms plain)`,
      note: "serve's utime+stime over the back-to-back scrapes ÷ their count (its poll ticks meanwhile included): not inflated by load",
    }),
  );
  out.add(
    figure({
      id: `${id}.scrape-plain-p99`,
      section: 'serve',
      label: `${size.label}: GET /metrics p99 without gzip`,
      value: plain.p99,
      unit: `ms (p50 ${plain.p50} ms, ${plain.wire} bytes)`,
      note: 'the same scrapes without Accept-Encoding (curl, a browser): the whole text on the wire',
    }),
  );
}

function loopFigures(size: (typeof SIZES)[number], w: LoopWindow): void {
  const id = `serve.${size.sessions}`;
  out.add(
    figure({
      id: `${id}.loop-delay-max`,
      section: 'serve',
      label: `${size.label}: serve event-loop delay during the scrapes, max`,
      value: w.loop.maxMs,
      unit: `ms (p99 ${w.loop.p99Ms} ms, p50 ${w.loop.p50Ms} ms, ${w.loop.samples} samples over ${Math.round(w.windowMs)} ms; longest GC pause ${w.gc.maxMs} ms of ${w.gc.count})`,
      note: `perf_hooks monitorEventLoopDelay (1 ms resolution) inside serve (bench/serve-hook.ts) over the back-to-back gzip scrapes: the longest a request could wait before serve ran at all, preemption by the machine's other processes included; load average ${load()}`,
      detail: { loop: w.loop, gc: w.gc, memory: w.memory, heap: w.heap },
    }),
  );
}

/**
 * The watcher's sysfs pass at this size in this process, sliced as serve runs it and in one go:
 * the CPU time (user+system) of its longest slice is the most a scrape waits for the poll on a quiet
 * machine, whatever the load now (the median of RUNS passes' longest slices, and of the whole pass).
 */
async function sliceFigures(size: (typeof SIZES)[number], root: string): Promise<void> {
  const runs = args.quick ? 5 : 15;
  const host = new FsHost({ root, runner: { mode: 'direct' } });
  const prober = new SysfsProber(host);
  const cpuMs = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  prober.probe(); // resolves links, opens the state files: what serve did at its first tick
  const longest: number[] = [];
  const whole: number[] = [];
  let slices = 0;
  const sliced = async () => {
    let max = 0;
    let mark = cpuMs();
    slices = 1;
    await prober.probeSliced(PROBE_SLICE_READS, async () => {
      const now = cpuMs();
      max = Math.max(max, now - mark);
      slices++;
      await new Promise<void>((r) => setImmediate(r));
      mark = cpuMs();
    });
    return Math.max(max, cpuMs() - mark);
  };
  for (let i = 0; i < runs; i++) {
    longest.push(await sliced());
    const c0 = cpuMs();
    prober.probe();
    whole.push(cpuMs() - c0);
  }
  prober.close();
  out.add(
    figure({
      id: `serve.${size.sessions}.poll-slice-cpu`,
      section: 'serve',
      label: `${size.label}: longest synchronous slice of the sysfs poll, CPU`,
      value: round(median(longest)),
      unit: `ms (${slices} slices of ≤ ${PROBE_SLICE_READS} entries; the pass in one go: ${round(median(whole))} ms)`,
      note: `SysfsProber.probeSliced on an FsHost over the fixture root in the measuring process, process.cpuUsage between slice points, median of ${runs} passes: not inflated by load`,
    }),
  );
}

function soakFigures(size: (typeof SIZES)[number], s: Soak, sideBySide: string): void {
  const window = `${Math.round(SOAK_MS / 1000)} s`;
  const label =
    SOAK_MS >= 600_000 ? 'after 10 minutes' : `after ${window} (quick: the goal is after 10 minutes)`;
  const id = `serve.${size.sessions}`;
  out.add(
    figure({
      id: `${id}.rss`,
      section: 'serve',
      label: `${size.label}: serve RSS ${label}, scraped every 15 s`,
      value: s.rssMiB,
      unit: `MiB (${s.anonMiB} anonymous + ${s.fileMiB} file-backed; peak ${s.peakRssMiB})`,
      target: { op: '<=', value: size.rssTarget },
      note: `VmRSS of the serve process at the end of a ${window} soak (${sideBySide}); file-backed is mostly the node binary's pages; load average ${load()}`,
    }),
  );
  if ('cpuTarget' in size)
    out.add(
      figure({
        id: `${id}.cpu`,
        section: 'serve',
        label: `${size.label}: serve CPU, idle, scraped every 15 s`,
        value: s.corePercent,
        unit: '% of a core',
        target: { op: '<=', value: size.cpuTarget },
        note: `utime+stime ÷ wall over the soak's last ${Math.round((SOAK_MS - SETTLE_MS) / 1000)} s (the first ${Math.round(SETTLE_MS / 1000)} s after the start-up reads and the latency scrapes not counted); default 2 s poll`,
      }),
    );
}

function oneShotFigures(size: (typeof SIZES)[number], root: string): void {
  const runs = args.quick ? 1 : 3;
  const id = `serve.${size.sessions}`;
  const status = oneShot(root, ['status', '--json'], runs);
  const metrics = oneShot(root, ['metrics'], runs);
  out.add(
    figure({
      id: `${id}.oneshot-status`,
      section: 'serve',
      label: `${size.label}: status --json one-shot`,
      value: status.wall,
      unit: 'ms (process start to exit, median)',
    }),
  );
  out.add(
    figure({
      id: `${id}.oneshot-metrics`,
      section: 'serve',
      label: `${size.label}: metrics one-shot`,
      value: metrics.wall,
      unit: `ms (${round(metrics.wall / status.wall)} × status --json)`,
    }),
  );
  if (size.sessions < 1000) return;
  // Exit 0 (no outage on the fixture) or 1; 2 would be "cannot tell" and fails the measurement.
  const check = oneShot(root, ['check', 'outage'], runs, [0, 1]);
  const note = `node-problem-detector kills a plugin after 5 s; process start to exit, median of ${runs}; load average ${load()}`;
  out.add(
    figure({
      id: `${id}.check-wall`,
      section: 'serve',
      label: `${size.label}: check outage`,
      value: check.wall,
      unit: 'ms',
      target: { op: '<=', value: 5000 },
      note,
    }),
  );
  out.add(
    figure({
      id: `${id}.check-cpu`,
      section: 'serve',
      label: `${size.label}: check outage, CPU time`,
      value: check.cpu,
      unit: 'ms (user+system; its wall time on a quiet machine)',
      target: { op: '<=', value: 5000 },
      note: 'utime+stime of the check process (single-threaded, reads tmpfs): not inflated by load',
    }),
  );
}

try {
  const nodeOptions = deployedNodeOptions();
  const roots = SIZES.map((s) => fixtureRoot(s.sessions, s.luns));
  const serves: Serve[] = [];
  try {
    // Each size's latency with its serve the only one working: the other's poll would compete for
    // the same cores, which a node running one serve never sees. The soak then runs both.
    for (const [i, size] of SIZES.entries()) {
      const s = await startServe(roots[i]!, nodeOptions);
      serves.push(s);
      const n = args.quick ? Math.ceil(size.scrapes / 4) : size.scrapes;
      await loopWindow(s);
      const gz = await scrapeLatency(s, n, true);
      const loop = await loopWindow(s);
      const plain = await scrapeLatency(s, Math.ceil(n / 4), false);
      log(`${size.label}: ${gz.bytes} bytes per scrape, ${gz.wire} gzipped`);
      latencyFigures(size, gz, plain, nodeOptions);
      if (loop?.monitored) loopFigures(size, loop);
    }
    await sliceFigures(SIZES[SIZES.length - 1]!, roots[roots.length - 1]!);
    const soaked = await soak(serves);
    const sideBySide = `${SIZES.map((s) => s.label).join(' and ')} soaked side by side`;
    for (const [i, size] of SIZES.entries()) soakFigures(size, soaked[i]!, sideBySide);
  } finally {
    await Promise.all(serves.map(stop));
  }
  for (const [i, size] of SIZES.entries()) oneShotFigures(size, roots[i]!);
} catch (e) {
  out.skip((e as Error).message);
} finally {
  out.write();
}
