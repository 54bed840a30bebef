/**
 * The sysfs pass runs in slices (sysfs-probe.ts): between two slices the event loop serves what
 * came in (serve's scrapes), the pass sees exactly what a pass in one go sees, a close between
 * slices ends it, and a refresh asked for while the poll's pass runs joins that pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import type { Host } from '../../src/engine/host/host.js';
import { SCSI_DEVICE_CLASS, SysfsProber } from '../../src/watchers/sysfs-probe.js';
import { startWatcher } from '../../src/watchers/watcher.js';
import { generateFixtureRoot } from '../helpers/generate-fixture-root.js';

const KROOT = '/var/lib/kubelet';
let root: string;

// 60 sessions × 4 LUNs: per session tgt's LUN 0 controller and 4 disks, so 300 SCSI devices, more
// than the watcher's slice (256 entries): its pass has a slice point.
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'probe-slices-'));
  generateFixtureRoot(root, { sessions: 60, luns: 4, kubeletRoot: KROOT });
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fsHost = () => new FsHost({ root, runner: { mode: 'direct' } });

describe('sliced sysfs pass', () => {
  it('sees what one pass in one go sees, yielding after every slice', async () => {
    const whole = new SysfsProber(fsHost()).probe();
    const prober = new SysfsProber(fsHost());
    let turns = 0;
    const sliced = await prober.probeSliced(16, async () => {
      turns++;
    });
    prober.close();
    expect(sliced?.detail).toEqual(whole.detail);
    expect(sliced?.devices).toBe(300);
    expect(sliced?.sessions).toBe(60);
    // A slice point after each of the three listings (SCSI devices, sessions, before block devices)
    // and after every 16th entry between them: 300 devices give 18, 60 sessions 3; 24 turns.
    expect(turns).toBe(24);
  });

  it('lets the event loop run between slices', async () => {
    const prober = new SysfsProber(fsHost());
    const order: string[] = [];
    const pass = prober.probeSliced(16).then(() => order.push('pass done'));
    // Queued after the pass started: it runs at the pass's first slice point, not after the pass.
    setImmediate(() => order.push('other work'));
    await pass;
    prober.close();
    expect(order).toEqual(['other work', 'pass done']);
  });

  it('ends at the next slice point once closed', async () => {
    const host = fsHost();
    const prober = new SysfsProber(host);
    let reads = 0;
    const counting = new Proxy(host, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function') return v;
        return (...a: unknown[]) => {
          reads++;
          return (v as (...x: unknown[]) => unknown).apply(target, a);
        };
      },
    });
    const closing = new SysfsProber(counting);
    await expect(closing.probeSliced(16, async () => closing.close())).resolves.toBeUndefined();
    const readsWhenClosed = reads;
    // Only the first slice ran (the device class listing), nothing after it.
    expect(readsWhenClosed).toBeLessThan(300);
    expect(readsWhenClosed).toBeGreaterThan(0);
    prober.close();
  });

  it('a refresh asked for during the poll’s pass joins it instead of taking a second pass', async () => {
    let listings = 0;
    const host = fsHost();
    const counting = new Proxy(host, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function') return v;
        if (prop !== 'readDir') return v.bind(target);
        return (p: string) => {
          if (p === SCSI_DEVICE_CLASS) listings++;
          return (v as (p: string) => string[]).call(target, p);
        };
      },
    }) as Host;
    const w = startWatcher({
      host: counting,
      kubeletRoot: KROOT,
      autoPoll: false,
      udev: false,
      files: false,
    });
    try {
      await w.ready;
      const before = listings;
      const [changed] = await Promise.all([w.poll(), w.refreshNow('joined')]);
      // The node did not change: the poll's pass finds nothing new, and the refresh reads with it.
      expect(changed).toBe(false);
      expect(listings - before).toBe(1);
    } finally {
      await w.stop();
    }
  });
});
