/**
 * The watcher's incremental refresh (bench/README.md latency): a poll tick whose probe can name the changed
 * sessions re-reads only those (refreshSnapshot), and the store then holds what a full snapshot
 * holds; additions/removals and non-poll sources take the full read.
 */
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/engine/model.js';
import {
  type ChangedSessions,
  type RefreshResult,
  refreshSnapshot,
  takeSnapshot,
} from '../../src/engine/snapshot/index.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { diffProbes } from '../../src/watchers/probe-diff.js';
import type { ProbeDetail } from '../../src/watchers/sysfs-probe.js';
import { startWatcher, type Watcher } from '../../src/watchers/watcher.js';
import { simAndWatcherPerTest } from './sim-per-test.js';

const KROOT = '/var/lib/kubelet';
const slot = simAndWatcherPerTest();

interface Call {
  changed: ChangedSessions;
  result: RefreshResult;
}

async function open(
  fullRefreshMs?: number,
): Promise<{ host: SimHost; w: Watcher; calls: Call[]; fulls: number[] }> {
  const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
  slot.close = close;
  const calls: Call[] = [];
  const fulls: number[] = [];
  slot.watcher = startWatcher({
    host,
    kubeletRoot: KROOT,
    autoPoll: false,
    udev: false,
    files: false,
    ...(fullRefreshMs === undefined ? {} : { fullRefreshMs }),
    takeSnapshot: (h, o) => {
      fulls.push(1);
      return takeSnapshot(h, o);
    },
    refreshSnapshot: (h, o, prev, changed) => {
      const result = refreshSnapshot(h, o, prev, changed);
      calls.push({ changed, result });
      return result;
    },
  });
  await slot.watcher.ready;
  return { host, w: slot.watcher, calls, fulls };
}

function published(w: Watcher): Snapshot {
  w.store.flush();
  return w.store.getState().snapshot!;
}

/**
 * The snapshot without what only a watcher knows: read times, and `downObserved` (it saw the portal
 * go down; a single read cannot, outages.ts carryDownTimes).
 */
function comparable(s: Snapshot): unknown {
  const { takenAt: _t, readMs: _r, ...rest } = s;
  return {
    ...rest,
    sessions: rest.sessions.map(({ downObserved: _o, ...x }) => x),
    outages: rest.outages.map(({ downObserved: _o, ...x }) => x),
  };
}

describe('watcher incremental refresh', () => {
  it('re-reads only the session of a device that went offline; the store equals a full read', async () => {
    const { host, w, calls, fulls } = await open();
    expect(fulls).toHaveLength(1);
    const s = published(w).sessions.find((x) => x.devices.some((d) => d.name && d.state === 'running'))!;
    const sd = s.devices.find((d) => d.name && d.state === 'running')!.name!;
    host.sim.deviceOffline(sd);
    expect(await w.poll()).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.changed).toEqual({ sids: [s.sid], structural: false });
    expect(calls[0]!.result.incremental).toBe(true);
    expect(fulls).toHaveLength(1);
    expect(comparable(published(w))).toEqual(comparable(takeSnapshot(host, { kubeletRoot: KROOT })));
    expect(w.store.getState().events.some((e) => e.kind === 'device' && /offline/.test(e.message))).toBe(
      true,
    );

    // A whole portal failing: every session on it is named (their disks block), nothing else.
    const portal = s.portal;
    const onPortal = published(w)
      .sessions.filter((x) => x.portal === portal)
      .map((x) => x.sid);
    host.sim.portalDown(portal);
    expect(await w.poll()).toBe(true);
    expect(calls[1]!.changed.structural).toBe(false);
    expect([...calls[1]!.changed.sids].sort((a, b) => a - b)).toEqual(onPortal.sort((a, b) => a - b));
    expect(calls[1]!.result.incremental).toBe(true);
    expect(comparable(published(w))).toEqual(comparable(takeSnapshot(host, { kubeletRoot: KROOT })));
  });

  it('a logout is structural (full read); refreshNow is always full', async () => {
    const { host, w, calls, fulls } = await open();
    const s = published(w).sessions[0]!;
    const r = await host.run(['iscsiadm', '-m', 'node', '-T', s.targetIqn, '-p', s.portal, '--logout']);
    expect(r.exitCode).toBe(0);
    expect(await w.poll()).toBe(true);
    expect(calls.at(-1)?.changed.structural).toBe(true);
    expect(calls.at(-1)?.result.incremental).toBe(false);
    expect(published(w).sessions.some((x) => x.sid === s.sid)).toBe(false);
    const before = fulls.length;
    await w.refreshNow();
    expect(fulls).toHaveLength(before + 1);
  });

  it('a full read once fullRefreshMs has passed since the last one', async () => {
    const { host, w, calls, fulls } = await open(30_000);
    const sd = published(w)
      .sessions.flatMap((x) => x.devices)
      .find((d) => d.name && d.state === 'running')!.name!;
    host.sim.deviceOffline(sd);
    await w.poll();
    expect(calls).toHaveLength(1);
    host.sim.advance(30_000);
    host.sim.pathFail(sd, 'running');
    await w.poll();
    expect(calls).toHaveLength(1);
    expect(fulls).toHaveLength(2);
  });
});

describe('diffProbes', () => {
  const base: ProbeDetail = {
    hctls: ['3:0:0:0', '3:0:0:1', '4:0:0:1'],
    deviceStates: ['', 'running\n', 'running\n'],
    sessions: ['session1', 'session2'],
    sessionStates: ['', ''],
    sessionHosts: [3, 4],
    blocks: ['sda', 'sdb', 'sdc'],
  };
  it('names the session owning a changed disk, or a changed session state', () => {
    expect(diffProbes(base, { ...base, deviceStates: ['', 'blocked\n', 'running\n'] })).toEqual({
      sids: [1],
      structural: false,
    });
    expect(diffProbes(base, { ...base, sessionStates: ['', 'FAILED\n'] })).toEqual({
      sids: [2],
      structural: false,
    });
    expect(diffProbes(base, base)).toEqual({ sids: [], structural: false });
  });
  it('is structural for additions, removals and disks no session owns', () => {
    expect(diffProbes(base, { ...base, blocks: ['sda', 'sdb'] }).structural).toBe(true);
    expect(
      diffProbes(base, { ...base, sessions: ['session1'], sessionStates: [''], sessionHosts: [3] })
        .structural,
    ).toBe(true);
    expect(diffProbes(base, { ...base, hctls: ['3:0:0:0', '3:0:0:1', '4:0:0:2'] }).structural).toBe(true);
    const unowned = { ...base, sessionHosts: [3, undefined] };
    expect(diffProbes(unowned, { ...unowned, deviceStates: ['', 'running\n', 'offline\n'] }).structural).toBe(
      true,
    );
  });
});
