/**
 * Which reads the watcher's node reader may take incrementally (src/watchers/node-reader.ts): a
 * multipath topology read that came in needs no full read of the node (every read assembles the
 * maps with the last topology read), while a source that may have changed anything does.
 */
import { describe, expect, it } from 'vitest';
import { refreshSnapshot, takeSnapshot } from '../../src/engine/snapshot/index.js';
import { openSimHost } from '../../src/sim/index.js';
import { createNodeReader, SYSFS_CHANGED, TOPOLOGY_READ } from '../../src/watchers/node-reader.js';
import { SysfsProber } from '../../src/watchers/sysfs-probe.js';
import { simAndWatcherPerTest } from './sim-per-test.js';

const KROOT = '/var/lib/kubelet';
const slot = simAndWatcherPerTest();

async function reader() {
  const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
  slot.close = close;
  const prober = new SysfsProber(host);
  const reads = { full: 0, incremental: 0 };
  const r = createNodeReader({
    host,
    kubeletRoot: KROOT,
    read: (h, o) => {
      reads.full++;
      return takeSnapshot(h, o);
    },
    refresh: (h, o, prev, changed) => {
      const result = refreshSnapshot(h, o, prev, changed);
      if (result.incremental) reads.incremental++;
      else reads.full++;
      return result;
    },
    fullRefreshMs: 60_000,
  });
  const probe = prober.probe();
  const first = r.read('start', probe);
  r.remember(first.snapshot, probe);
  return { r, prober, reads, first };
}

describe('node reader', () => {
  it('reads incrementally for a topology read, as for the poll, and in full for any other source', async () => {
    const { r, prober, reads, first } = await reader();
    expect(first.full).toBe(true);
    expect(reads).toEqual({ full: 1, incremental: 0 });

    const topo = r.read(TOPOLOGY_READ, prober.probe());
    expect(topo.full).toBe(false);
    expect(topo.snapshot.sessions.map((s) => s.key)).toEqual(first.snapshot.sessions.map((s) => s.key));
    expect(r.read(`${SYSFS_CHANGED}, ${TOPOLOGY_READ}`, prober.probe()).full).toBe(false);
    expect(reads).toEqual({ full: 1, incremental: 2 });

    expect(r.read(`${TOPOLOGY_READ}, uevent add /devices/x`, prober.probe()).full).toBe(true);
    expect(reads).toEqual({ full: 2, incremental: 2 });
    prober.close();
  });
});
