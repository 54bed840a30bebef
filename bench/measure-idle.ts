/**
 * bench/README.md — idle watching: what the watcher costs per refresh tick and per minute with 1,000
 * sessions × 4 LUNs and nothing changing, at the default 2 s interval. Two views of the same thing:
 * - driven ticks: the watchers' own `measureIdleTick` (production `poll()` back to back, process CPU);
 * - a real-time window: `startWatcher` with its own timer for ~20 s, process CPU over the window
 *   (timers, GC, chokidar included), i.e. what `top` would show for an idle console's engine.
 * udev is off in both (a fixture root has no uevents of its own; `udevadm monitor` would be a
 * separate process whose idle cost is a blocked read).
 */
import { FsHost } from '../src/engine/host/fs-host.js';
import { DEFAULT_REFRESH_MS, startWatcher } from '../src/watchers/watcher.js';
import { benchArgs, collectGarbage } from './lib/args.js';
import { figure } from './lib/figure.js';
import { FIXTURE_KUBELET_ROOT, fixtureRoot } from './lib/fixtures.js';
import { log, Output } from './lib/output.js';
import { RecordingHost } from './lib/recording-host.js';
import { round } from './lib/stats.js';
import { measureIdleTick } from './lib/watch-measure.js';

const SESSIONS = 1000;
const LUNS = 4;
/** ≤ 2 % of one core at the default interval. */
const CORE_PERCENT_TARGET = 2;
const args = benchArgs();
const out = new Output('idle');

try {
  const root = fixtureRoot(SESSIONS, LUNS);
  const host = new FsHost({ root, runner: { mode: 'direct' } });

  // What one idle tick reads (counted through the decorator, one tick after the first snapshot).
  const rec = new RecordingHost(host);
  const w0 = startWatcher({ host: rec, kubeletRoot: FIXTURE_KUBELET_ROOT, autoPoll: false, udev: false });
  await w0.ready;
  await w0.poll();
  rec.reset();
  const changed = await w0.poll();
  const tickCalls = rec.total();
  await w0.stop();
  log(`one idle tick: ${tickCalls} Host calls (${JSON.stringify(rec.counts)}), refresh=${changed}`);

  collectGarbage();
  const ticks = args.quick ? 10 : 40;
  const m = await measureIdleTick(host, ticks, {
    kubeletRoot: FIXTURE_KUBELET_ROOT,
    refreshMs: DEFAULT_REFRESH_MS,
  });
  log(`measureIdleTick: ${JSON.stringify(m)}`);
  const sane = m.sessions === SESSIONS ? '' : ` (the watcher saw ${m.sessions} sessions, not ${SESSIONS})`;
  out.add(
    figure({
      id: 'idle.cpu-ms-per-tick',
      section: 'idle',
      label: `1,000 × 4, idle: CPU per poll tick`,
      value: m.cpuMsPerTick,
      unit: `ms (${tickCalls.toLocaleString('en-US')} Host calls, ${m.refreshes} refreshes)`,
      note: `measureIdleTick (bench/lib/watch-measure.ts): ${ticks} production poll() ticks back to back on an FsHost over the fixture root, process.cpuUsage (user+system)${sane}`,
      detail: { ...m, hostCallsPerTick: tickCalls, byOp: { ...rec.counts } },
    }),
  );
  out.add(
    figure({
      id: 'idle.core-percent',
      section: 'idle',
      label: `1,000 × 4, idle: share of one core at ${DEFAULT_REFRESH_MS / 1000} s (driven ticks)`,
      value: m.percentOfCore,
      unit: `% (${round(m.cpuMsPerMinute)} CPU ms/min)`,
      target: { op: '<=', value: CORE_PERCENT_TARGET },
      note: 'CPU ms per tick ÷ refresh interval',
    }),
  );

  // Real-time window: the watcher's own timer, nothing changing, process CPU over the window.
  const windowMs = args.quick ? 6_000 : 20_000;
  const w = startWatcher({ host, kubeletRoot: FIXTURE_KUBELET_ROOT, udev: false });
  await w.ready;
  // Skip the first tick after start (file watches settle, JIT), then measure whole intervals.
  await new Promise((r) => setTimeout(r, DEFAULT_REFRESH_MS + 100));
  const refreshes0 = w.store.getState().health.refreshCount;
  collectGarbage();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // The watcher's timer is unref'd: keep the process alive with our own timer.
  await new Promise((r) => setTimeout(r, windowMs));
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  w.store.flush();
  const refreshes = w.store.getState().health.refreshCount - refreshes0;
  await w.stop();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const pct = (100 * cpuMs) / wall;
  out.add(
    figure({
      id: 'idle.window-core-percent',
      section: 'idle',
      label: `1,000 × 4, idle: share of one core over ${Math.round(wall / 1000)} s real time`,
      value: round(pct),
      unit: `% (${round((cpuMs * 60_000) / wall)} CPU ms/min, ${refreshes} refreshes)`,
      target: { op: '<=', value: CORE_PERCENT_TARGET },
      note: 'startWatcher with its own 2 s timer (chokidar on, udev off), process.cpuUsage over the window after the first tick',
      detail: { cpuMs: round(cpuMs), wallMs: round(wall), refreshes },
    }),
  );
} catch (e) {
  out.skip((e as Error).message);
} finally {
  out.write();
}
