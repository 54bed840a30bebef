/**
 * The poll's early announcement of a state change and the snapshot diff's copy of it are matched by
 * event identity (kind, subject, transition), never by text: here every call of the state-event
 * constructors words its event differently (as if one side's wording had been edited), and each
 * change is still reported exactly once.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Snapshot } from '../../src/engine/model.js';
import { openSimHost } from '../../src/sim/index.js';
import { startWatcher } from '../../src/watchers/watcher.js';
import { simAndWatcherPerTest } from './sim-per-test.js';

vi.mock('../../src/watchers/events.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/watchers/events.js')>();
  let n = 0;
  const reworded =
    <A extends unknown[]>(make: (...a: A) => ReturnType<typeof real.deviceStateEvent>) =>
    (...a: A) => {
      const e = make(...a);
      return { ...e, message: `${e.message} [wording ${++n}]` };
    };
  return {
    ...real,
    deviceStateEvent: reworded(real.deviceStateEvent),
    sessionStateEvent: reworded(real.sessionStateEvent),
  };
});

const KROOT = '/var/lib/kubelet';
const slot = simAndWatcherPerTest();

function runningDisk(s: Snapshot): string {
  return s.sessions.flatMap((x) => x.devices).find((d) => d.name && d.state === 'running')!.name!;
}

describe('announcement and diff matched by identity', () => {
  it('a disk and a session state change are each reported once, however each side words them', async () => {
    const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
    slot.close = close;
    slot.watcher = startWatcher({ host, kubeletRoot: KROOT, autoPoll: false, udev: false, files: false });
    const w = slot.watcher;
    await w.ready;
    w.store.flush();
    const before = w.store.getState().snapshot!;
    const sd = runningDisk(before);
    const s = before.sessions.find((x) => x.state === 'LOGGED_IN' && !x.devices.some((d) => d.name === sd))!;

    host.sim.deviceOffline(sd);
    host.sim.kernel.failSession(host.sim.kernel.findSessions((x) => x.sid === s.sid)[0]!);
    expect(await w.poll()).toBe(true);
    w.store.flush();
    const events = w.store.getState().events;
    const disk = events.filter(
      (e) => e.kind === 'device' && e.message.startsWith(`${sd} state running→offline`),
    );
    const session = events.filter(
      (e) =>
        e.kind === 'session' &&
        e.subject === s.key &&
        e.message.startsWith(`session ${s.sid} LOGGED_IN→FAILED`),
    );
    // The mock really words each call apart: a text match would have let the diff's copy through.
    expect(new Set(events.map((e) => e.message)).size).toBe(events.length);
    expect(disk).toHaveLength(1);
    expect(session).toHaveLength(1);
  });
});
