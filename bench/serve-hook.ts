/**
 * `node --import serve-hook.mjs dist/cli.js serve …` (bench/measure-serve.ts): watches serve from
 * inside its own process, where load on the machine does not blur the figure.
 * - event-loop blocking: perf_hooks' monitorEventLoopDelay at 1 ms resolution; its max is the
 *   longest stretch the loop could not run a timer (the longest synchronous slice, + ≤ 1 ms), which
 *   is what a scrape arriving at the worst moment waits for before serve even reads it;
 * - garbage collection in the same windows (perf_hooks 'gc' entries): the longest pause and the total,
 *   so a long delay can be told apart from the watcher's own work;
 * - memory: process.memoryUsage() and V8's heap spaces, to say what the RSS is made of.
 * Each SIGUSR2 ends a window and starts the next: it writes the window's figures as JSON to
 * $BENCH_SERVE_HOOK_OUT.<pid>.json (a temp file renamed, so the reader never sees half of it). Windows
 * alternate: the first starts at the first signal and is monitored, the next is not, and so on; the
 * monitor is off outside them, because its 1 ms timer wakes the loop 1,000 times a second (~2–3 % of
 * a core), which the idle-CPU soak must not count. serve itself listens to SIGUSR2 only with
 * --demo, which the bench does not use.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const out = process.env.BENCH_SERVE_HOOK_OUT;
if (out) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let monitored = false;
  let gc = { count: 0, totalMs: 0, maxMs: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  });
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  let since = performance.now();
  process.on('SIGUSR2', () => {
    // Under --expose-gc (by hand, to tell live memory from garbage not yet collected).
    (globalThis as { gc?: () => void }).gc?.();
    const heap = getHeapStatistics();
    const report = {
      windowMs: Math.round(performance.now() - since),
      monitored,
      loop: {
        samples: delay.count,
        maxMs: ms(delay.max),
        p99Ms: ms(delay.percentile(99)),
        p50Ms: ms(delay.percentile(50)),
        meanMs: ms(delay.mean),
      },
      gc: {
        count: gc.count,
        totalMs: Math.round(gc.totalMs * 100) / 100,
        maxMs: Math.round(gc.maxMs * 100) / 100,
      },
      memory: process.memoryUsage(),
      heap: {
        totalHeapSize: heap.total_heap_size,
        usedHeapSize: heap.used_heap_size,
        mallocedMemory: heap.malloced_memory,
        externalMemory: heap.external_memory,
        spaces: Object.fromEntries(
          getHeapSpaceStatistics().map((s) => [
            s.space_name,
            { size: s.space_size, used: s.space_used_size, physical: s.physical_space_size },
          ]),
        ),
      },
    };
    const file = `${out}.${process.pid}.json`;
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
    delay.reset();
    gc = { count: 0, totalMs: 0, maxMs: 0 };
    monitored = !monitored;
    if (monitored) {
      delay.enable();
      gcObserver.observe({ entryTypes: ['gc'] });
    } else {
      delay.disable();
      gcObserver.disconnect();
    }
    since = performance.now();
  });
}
