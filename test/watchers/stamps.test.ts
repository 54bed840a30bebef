/**
 * The health stamps a status line shows: when the node was last polled (every tick, changed or
 * not), when it was last read (full or incremental), and when it was last read in full.
 */
import { describe, expect, it } from 'vitest';
import { openSimHost } from '../../src/sim/index.js';
import { startWatcher } from '../../src/watchers/watcher.js';
import { simAndWatcherPerTest } from './sim-per-test.js';

const slot = simAndWatcherPerTest();

describe('watcher health stamps', () => {
  it('keeps the last poll, the last read and the last full read apart', async () => {
    const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
    slot.close = close;
    slot.watcher = startWatcher({
      host,
      kubeletRoot: '/var/lib/kubelet',
      autoPoll: false,
      udev: false,
      files: false,
    });
    const w = slot.watcher;
    const health = () => {
      w.store.flush();
      return w.store.getState().health;
    };
    await w.ready;
    const t0 = host.now();
    expect(health()).toMatchObject({ lastPollAt: t0, lastRefreshAt: t0, lastFullReadAt: t0 });

    // An idle tick: polled, not read.
    host.sim.advance(5_000);
    expect(await w.poll()).toBe(false);
    expect(health()).toMatchObject({ lastPollAt: t0 + 5_000, lastRefreshAt: t0, lastFullReadAt: t0 });

    // A disk goes offline: the tick reads only its session (incremental), not everything.
    const sd = w.store
      .getState()
      .snapshot!.sessions.flatMap((s) => s.devices)
      .find((d) => d.name && d.state === 'running')!.name!;
    host.sim.advance(5_000);
    host.sim.deviceOffline(sd);
    expect(await w.poll()).toBe(true);
    expect(health()).toMatchObject({
      lastPollAt: t0 + 10_000,
      lastRefreshAt: t0 + 10_000,
      lastFullReadAt: t0,
    });

    // A read asked for by anything but the poll is full.
    host.sim.advance(5_000);
    await w.refreshNow();
    expect(health()).toMatchObject({
      lastPollAt: t0 + 15_000,
      lastRefreshAt: t0 + 15_000,
      lastFullReadAt: t0 + 15_000,
    });
  });
});
