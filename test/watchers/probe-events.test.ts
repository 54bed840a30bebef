/**
 * The poll publishes the state changes its probe proves before the snapshot that carries them is
 * read (bench/README.md: change → event within one interval at 1,000 sessions), worded as the snapshot
 * diff words them, and the snapshot's own copy of each is dropped: every change is reported once.
 */
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/engine/model.js';
import { refreshSnapshot, takeSnapshot } from '../../src/engine/snapshot/index.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { diffSnapshots } from '../../src/watchers/diff.js';
import { probeEvents, sameProbe } from '../../src/watchers/probe-diff.js';
import { fingerprintOf, SysfsProber } from '../../src/watchers/sysfs-probe.js';
import type { NodeEvent } from '../../src/watchers/types.js';
import { startWatcher, type Watcher, type WatcherOptions } from '../../src/watchers/watcher.js';
import { simAndWatcherPerTest } from './sim-per-test.js';

const KROOT = '/var/lib/kubelet';
const slot = simAndWatcherPerTest();

async function sim(): Promise<SimHost> {
  const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
  slot.close = close;
  return host;
}

const text = (e: Pick<NodeEvent, 'kind' | 'subject' | 'severity' | 'message'>) =>
  `${e.kind} ${e.severity} ${e.subject} ${e.message}`;

function runningDisk(s: Snapshot): string {
  return s.sessions.flatMap((x) => x.devices).find((d) => d.name && d.state === 'running')!.name!;
}

describe('probeEvents', () => {
  it('words a disk and a session state change exactly as the snapshot diff does', async () => {
    const host = await sim();
    const prober = new SysfsProber(host);
    const before = takeSnapshot(host, { kubeletRoot: KROOT });
    expect(probeEvents(before, prober.probe().detail)).toEqual([]);

    host.sim.deviceOffline(runningDisk(before));
    const s = before.sessions.find((x) => x.state === 'LOGGED_IN' && x.devices.length > 0)!;
    host.sim.kernel.failSession(host.sim.kernel.findSessions((x) => x.sid === s.sid)[0]!);
    const early = probeEvents(before, prober.probe().detail).map((a) => a.event);
    const after = takeSnapshot(host, { kubeletRoot: KROOT });
    const diffed = diffSnapshots(before, after).events.filter(
      (e) => e.kind === 'device' || e.kind === 'session',
    );
    expect(early.some((e) => e.kind === 'device' && /→offline$/.test(e.message))).toBe(true);
    expect(early.some((e) => e.kind === 'session' && e.subject === s.key && /→FAILED/.test(e.message))).toBe(
      true,
    );
    // Every announcement is one of the diff's own events, word for word.
    const diffTexts = new Set(diffed.map(text));
    for (const e of early) expect(diffTexts).toContain(text(e));
    // Nothing once the snapshot has caught up.
    expect(probeEvents(after, prober.probe().detail)).toEqual([]);
  });

  it('compares probes list by list (sameProbe), and the fingerprint is only built on demand', async () => {
    const host = await sim();
    const prober = new SysfsProber(host);
    const a = prober.probe();
    const b = prober.probe();
    expect(sameProbe(a.detail, b.detail)).toBe(true);
    expect(a.fingerprint).toBe(fingerprintOf(b.detail));
    host.sim.deviceOffline(runningDisk(takeSnapshot(host, { kubeletRoot: KROOT })));
    const c = prober.probe();
    expect(sameProbe(b.detail, c.detail)).toBe(false);
    expect(c.fingerprint).not.toBe(b.fingerprint);
  });
});

/** A watcher driven only by `poll()` (no timer, uevents or file watches) with its own refresh. */
function pollOnlyWatcher(host: SimHost, refresh: WatcherOptions['refreshSnapshot']): Watcher {
  return startWatcher({
    host,
    kubeletRoot: KROOT,
    autoPoll: false,
    udev: false,
    files: false,
    refreshSnapshot: refresh,
  });
}

describe('watcher: probe announcements', () => {
  it('publishes a disk going offline before the refresh reads it, and reports it once', async () => {
    const host = await sim();
    // Records what the store had published when the refresh the poll asked for started reading.
    const seenAtRefresh: string[][] = [];
    slot.watcher = pollOnlyWatcher(host, (h, o, prev, changed) => {
      slot.watcher!.store.flush();
      seenAtRefresh.push(slot.watcher!.store.getState().events.map((e) => e.message));
      return refreshSnapshot(h, o, prev, changed);
    });
    const w = slot.watcher;
    await w.ready;
    w.store.flush();
    const sd = runningDisk(w.store.getState().snapshot!);
    host.sim.deviceOffline(sd);
    expect(await w.poll()).toBe(true);
    w.store.flush();
    const message = `${sd} state running→offline`;
    expect(seenAtRefresh).toHaveLength(1);
    expect(seenAtRefresh[0]).toContain(message);
    const events = w.store.getState().events;
    expect(events.filter((e) => e.message === message)).toHaveLength(1);
    // What follows from it still comes with the snapshot (the multipath path, when it has one).
    expect(
      w.store
        .getState()
        .snapshot!.sessions.flatMap((x) => x.devices)
        .find((d) => d.name === sd)?.state,
    ).toBe('offline');

    // Back to running: announced once, reported once, and no stale announcement swallows a later
    // identical change.
    host.sim.pathFail(sd, 'running');
    await w.poll();
    host.sim.deviceOffline(sd);
    await w.poll();
    w.store.flush();
    expect(w.store.getState().events.filter((e) => e.message === message)).toHaveLength(2);
    expect(w.store.getState().events.filter((e) => e.message === `${sd} state offline→running`)).toHaveLength(
      1,
    );
  });

  it('follows an announcement the refresh did not confirm with the move to the state it read', async () => {
    const host = await sim();
    let sd = '';
    let restore = false;
    // The disk comes back between the poll's probe and the refresh's read.
    slot.watcher = pollOnlyWatcher(host, (h, o, prev, changed) => {
      if (restore) host.sim.pathFail(sd, 'running');
      return refreshSnapshot(h, o, prev, changed);
    });
    const w = slot.watcher;
    await w.ready;
    w.store.flush();
    sd = runningDisk(w.store.getState().snapshot!);
    restore = true;
    host.sim.deviceOffline(sd);
    await w.poll();
    w.store.flush();
    const messages = w.store.getState().events.map((e) => e.message);
    const down = messages.indexOf(`${sd} state running→offline`);
    const up = messages.indexOf(`${sd} state offline→running`);
    expect(down).toBeGreaterThanOrEqual(0);
    expect(up).toBeGreaterThan(down);
    expect(
      w.store
        .getState()
        .snapshot!.sessions.flatMap((x) => x.devices)
        .find((d) => d.name === sd)?.state,
    ).toBe('running');

    // The same change again, now for good: the probe that saw the first one cannot hide it.
    restore = false;
    host.sim.deviceOffline(sd);
    await w.poll();
    w.store.flush();
    const again = w.store.getState().events.map((e) => e.message);
    expect(again.lastIndexOf(`${sd} state running→offline`)).toBeGreaterThan(up);
    expect(
      w.store
        .getState()
        .snapshot!.sessions.flatMap((x) => x.devices)
        .find((d) => d.name === sd)?.state,
    ).toBe('offline');
  });
});
