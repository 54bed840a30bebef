/**
 * Prints the watchers' cost figures (bench/README.md; bench/measure-idle.ts and measure-latency.ts call the same functions): CPU per idle
 * poll tick with 1,000 sessions, and the time from a change to its event. Timings are printed, never
 * asserted (shared machines are noisy); only the shape is asserted (no refresh while idle, events
 * arrive). Run: `npx vitest run test/watchers/idle-cost.test.ts`.
 */
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureChangeToEvent, measureIdleTick } from '../../bench/lib/watch-measure.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { under } from '../../src/engine/host/path.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { SysfsProber } from '../../src/watchers/sysfs-probe.js';
import { startWatcher } from '../../src/watchers/watcher.js';

const KROOT = '/var/lib/kubelet';
let sim: { host: SimHost; close: () => Promise<void> };

// The scale scenario is 1,000 sessions × 4 LUNs, half multipath (src/sim/scenarios/scale.ts).
beforeAll(async () => {
  sim = await openSimHost({ scenario: 'scale', clock: 'manual' });
}, 600_000);
afterAll(() => sim?.close(), 600_000);

describe('watcher cost with 1,000 sessions (sim scale scenario)', () => {
  it('idle poll tick: CPU per tick and per minute', async () => {
    // FsHost over the simulator's tree is what a real node and a --root fixture run (state files
    // kept open); the SimHost itself has no openReader and reads each file by path.
    const fsHost = new FsHost({ root: sim.host.root, runner: { mode: 'direct' } });
    for (const [label, host] of [
      ['FsHost (node, --root)', fsHost],
      ['SimHost (--demo)', sim.host],
    ] as const) {
      const m = await measureIdleTick(host, 20, { kubeletRoot: KROOT });
      console.log(
        `[watchers] idle tick on ${label}, ${m.sessions} sessions / ${m.devices} SCSI devices: ` +
          `${m.cpuMsPerTick} ms CPU per tick (wall ${m.wallMsPerTick} ms); ` +
          `${m.cpuMsPerMinute} ms CPU per minute at ${m.refreshMs} ms = ${m.percentOfCore} % of one core`,
      );
      expect(m.sessions).toBe(1000);
      expect(m.refreshes).toBe(0);
    }
    // The floor: the same files read with bare fs calls, no Host, no fingerprint (same run, same load).
    const paths: { op: 'file' | 'dir'; real: string }[] = [];
    const recording = new Proxy(sim.host, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function') return v;
        if (prop !== 'readText' && prop !== 'readDir') return v.bind(target);
        return (p: string) => {
          paths.push({ op: prop === 'readText' ? 'file' : 'dir', real: under(target.root, p) });
          return v.call(target, p);
        };
      },
    });
    const prober = new SysfsProber(recording);
    prober.probe();
    paths.length = 0;
    prober.probe();
    const ticks = 20;
    const c0 = process.cpuUsage();
    for (let i = 0; i < ticks; i++) {
      for (const x of paths) {
        try {
          if (x.op === 'file') fs.readFileSync(x.real, 'utf8');
          else fs.readdirSync(x.real);
        } catch {}
      }
    }
    const c = process.cpuUsage(c0);
    const floor = (c.user + c.system) / 1000 / ticks;
    console.log(
      `[watchers] floor: the tick's ${paths.length} reads by path with bare fs calls: ${floor.toFixed(2)} ms CPU`,
    );
  }, 600_000);

  it('change → event latency', async () => {
    const { host } = sim;
    const w = startWatcher({ host, kubeletRoot: KROOT });
    try {
      await w.ready;
      const disks = w.store
        .getState()
        .snapshot!.sessions.flatMap((s) => s.devices)
        .filter((d) => d.name);
      const [a, b] = [disks[0]!.name!, disks[1]!.name!];
      // A state change, found by the 2 s poll timer: up to one interval + one snapshot.
      const timed = await measureChangeToEvent(
        w,
        () => host.sim.deviceOffline(a),
        (e) => e.message === `${a} state running→offline`,
      );
      // The same kind of change with the tick run at once: detection + snapshot + diff + publication.
      const driven = await measureChangeToEvent(
        w,
        async () => {
          host.sim.deviceOffline(b);
          await w.poll();
        },
        (e) => e.message === `${b} state running→offline`,
      );
      const snapMs = w.store.getState().health.lastRefreshMs;
      // A logout: the (simulated) uevent triggers the refresh without waiting for the tick.
      const sess = w.store.getState().snapshot!.sessions.at(-1)!;
      const [portal] = sess.portal.split(',');
      const uevent = await measureChangeToEvent(
        w,
        () => host.run(['iscsiadm', '-m', 'node', '-T', sess.targetIqn, '-p', portal!, '--logout']),
        (e) => e.message.startsWith(`session ${sess.sid} gone`),
      );
      console.log(
        `[watchers] change→event at 1,000 sessions: device offline ${timed} ms (2 s poll timer), ` +
          `${driven} ms with the tick run at once (snapshot ${snapMs} ms); logout via uevent ${uevent} ms`,
      );
    } finally {
      await w.stop();
    }
  }, 600_000);
});
