/**
 * Benchmark probes for the watchers (bench/README.md calls these): the idle cost of a poll tick, and the
 * time from a change on the node to its event in the store. They measure the production code path
 * (startWatcher + poll) on whatever Host they are given: a fixture root, the simulator, a real node.
 */
import type { Host } from '../../src/engine/host/host.js';
import type { NodeEvent } from '../../src/watchers/types.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { DEFAULT_REFRESH_MS, startWatcher, type Watcher } from '../../src/watchers/watcher.js';

export interface IdleTickMeasure {
  ticks: number;
  sessions: number;
  devices: number;
  /** Ticks that found a change and took a snapshot (0 when the node was really idle). */
  refreshes: number;
  /** Process CPU (user + system) per tick, ms: what the node pays. */
  cpuMsPerTick: number;
  wallMsPerTick: number;
  refreshMs: number;
  /** CPU ms per minute at `refreshMs`. */
  cpuMsPerMinute: number;
  /** Share of one core at `refreshMs`, in percent. */
  percentOfCore: number;
}

/**
 * Runs `ticks` poll ticks back to back on an idle node (after one warm-up tick) and reports their
 * CPU cost. File watches are on (their idle cost is inotify: nothing), udev is off (no process CPU
 * of ours), so the figure is what the watcher itself costs between changes.
 */
export async function measureIdleTick(
  host: Host,
  ticks = 20,
  options: { kubeletRoot?: string; refreshMs?: number } = {},
): Promise<IdleTickMeasure> {
  const refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  const watcher = startWatcher({
    host,
    kubeletRoot: options.kubeletRoot ?? '/var/lib/kubelet',
    refreshMs,
    autoPoll: false,
    udev: false,
  });
  try {
    await watcher.ready;
    await watcher.poll();
    let refreshes = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < ticks; i++) if (await watcher.poll()) refreshes++;
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    watcher.store.flush();
    const snap = watcher.store.getState().snapshot;
    const cpuMsPerTick = (cpu.user + cpu.system) / 1000 / ticks;
    return {
      ticks,
      sessions: snap?.sessions.length ?? 0,
      devices: snap?.sessions.reduce((n, s) => n + s.devices.length, 0) ?? 0,
      refreshes,
      cpuMsPerTick: round(cpuMsPerTick),
      wallMsPerTick: round(wall / ticks),
      refreshMs,
      cpuMsPerMinute: round(cpuMsPerTick * (60_000 / refreshMs)),
      percentOfCore: round((cpuMsPerTick / refreshMs) * 100, 3),
    };
  } finally {
    await watcher.stop();
  }
}

/**
 * Time (ms) from `change()` to the first published event that `match`es. The watcher must be
 * running (its own poll timer, udev, file watches): this is what an admin waits.
 */
export async function measureChangeToEvent(
  watcher: Watcher,
  change: () => unknown,
  match: (e: NodeEvent) => boolean,
  timeoutMs = 10_000,
): Promise<number> {
  watcher.store.flush();
  const after = watcher.store.getState().events.at(-1)?.id ?? 0;
  // The clock starts before the change: a change that triggers a synchronous refresh counts it.
  const t0 = performance.now();
  await change();
  await waitFor(watcher.store, (s) => s.events.some((e) => e.id > after && match(e)), timeoutMs);
  return round(performance.now() - t0);
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
