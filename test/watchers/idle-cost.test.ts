/**
 * Prints the watchers' cost figures (issue 6 / issue 9 §2-3): CPU per idle poll tick with 1,000
 * sessions, and the time from a change to its event. Timings are printed, never asserted (shared
 * machines are noisy); only the shape (no refresh while idle, the event arrives) is asserted.
 */
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { measureChangeToEvent, measureIdleTick } from '../../src/watchers/measure.js';
import { startWatcher } from '../../src/watchers/watcher.js';
import { generateFixtureRoot } from '../helpers/generate-fixture-root.js';
import { tempRoot } from '../helpers/materialize-sysfs.js';

const KROOT = '/var/lib/kubelet';
let root: string;

beforeAll(() => {
  root = tempRoot('iscsi-idle-');
  generateFixtureRoot(root, { sessions: 1000, luns: 1, kubeletRoot: KROOT });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('watcher cost with 1,000 sessions', () => {
  it('idle poll tick: CPU per tick and per minute', async () => {
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    const m = await measureIdleTick(host, 20, { kubeletRoot: KROOT });
    console.log(
      `[watchers] idle tick, ${m.sessions} sessions / ${m.devices} SCSI devices: ` +
        `${m.cpuMsPerTick} ms CPU per tick (wall ${m.wallMsPerTick} ms), ` +
        `${m.cpuMsPerMinute} ms CPU per minute at ${m.refreshMs} ms = ${m.percentOfCore} % of one core`,
    );
    expect(m.sessions).toBe(1000);
    expect(m.refreshes).toBe(0);
  });

  it('change → event latency (poll timer at 2 s; first snapshot excluded)', async () => {
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    const w = startWatcher({ host, kubeletRoot: KROOT, udev: false });
    try {
      await w.ready;
      const session = host.readDir('/sys/class/iscsi_session')[0]!;
      const statePath = fs.realpathSync(`${root}/sys/class/iscsi_session/${session}`);
      const timed = await measureChangeToEvent(
        w,
        () => fs.writeFileSync(`${statePath}/state`, 'FAILED\n'),
        (e) => e.message.includes('LOGGED_IN→FAILED'),
      );
      // The same change with the tick driven at once: detection + snapshot + diff + publication.
      const driven = await measureChangeToEvent(
        w,
        async () => {
          fs.writeFileSync(`${statePath}/state`, 'LOGGED_IN\n');
          void w.poll();
        },
        (e) => e.message.includes('FAILED→LOGGED_IN'),
      );
      w.store.flush();
      const snapMs = w.store.getState().health.lastRefreshMs;
      console.log(
        `[watchers] change→event: ${timed} ms with the 2 s poll timer (≤ one interval + one snapshot); ` +
          `${driven} ms when the tick runs at once (snapshot of 1,000 sessions ${snapMs} ms)`,
      );
      expect(timed).toBeLessThan(2_000 + 5_000);
    } finally {
      await w.stop();
    }
  });
});
