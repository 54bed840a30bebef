/**
 * The console on a node with a dead portal (a simulator snapshot, read by the engine): the banner
 * under the tabs, the row's verdict and reason, and the session detail's kernel recovery state.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { nodeProblems } from '../../src/engine/snapshot/problems.js';
import { openSimHost } from '../../src/sim/index.js';
import { outageBannerLines } from '../../src/ui/outage-banner.js';
import { sessionDetailLines } from '../../src/ui/views/session-detail.js';
import { sessionRow } from '../../src/ui/views/sessions.js';
import { fakeBackend } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';
import { KEY } from './helpers/render-tui.js';

const PORTAL = '10.0.0.10:3260';
let t: Mounted | undefined;
afterEach(() => t?.unmount());

/**
 * The `outage` scenario: 5 sessions through 10.0.0.10:3260 FAILED (4 in use, sids 1-4, and the
 * unused scratch-old, sid 5), 2 fine on .11 (sids 6 and 7).
 */
async function outageSnapshot(tweak?: (sim: Awaited<ReturnType<typeof openSimHost>>['host']['sim']) => void) {
  const opened = await openSimHost({ scenario: 'outage', clock: 'manual' });
  try {
    tweak?.(opened.host.sim);
    return takeSnapshot(opened.host, { kubeletRoot: '/var/lib/kubelet' });
  } finally {
    await opened.close();
  }
}

const rowOf = (frame: string, sid: number) =>
  frame.split('\n').find((l) => new RegExp(`^.{2}\\s*${sid} (iqn|…)`).test(l));

describe('console on a dead portal', () => {
  it('shows the banner under the tabs and the outage as the row reason', async () => {
    const snap = await outageSnapshot();
    t = await mountConsole({ backend: fakeBackend(snap), columns: 160, rows: 30 });
    const f = await t.waitFor('OUTAGE');
    const lines = f.split('\n');
    expect(lines[1]).toMatch(/1 sessions/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^↯ OUTAGE portal ${PORTAL.replace(/\./g, '\\.')} down: 5 sessions FAILED · first seen down .*\\d\\d:\\d\\d UTC`,
      ),
    );
    // The summary line under the banner leaves the dead portal to the banner (said once on screen).
    expect(lines[3]).toMatch(/^✗ 5 failed/);
    expect(lines[3]).not.toContain('down');
    expect(lines[4]).toMatch(/SID TARGET/);
    // The REASON column (problems.ts) shares the flex space with TARGET: the outage comes first.
    expect(rowOf(f, 1)).toMatch(/FAILED .*● in-use\s+✗ failed\s+portal 10\.0\.0\.10:3260 down; sess/);
    expect(rowOf(f, 6)).toMatch(/minio-0/);
    expect(rowOf(f, 6)).not.toContain('down');
    // The layout keeps within the terminal with the extra line.
    expect(lines.length).toBeLessThanOrEqual(30);
  });

  it('no banner when every portal is up', async () => {
    const snap = await outageSnapshot((sim) => sim.portalUp(PORTAL));
    t = await mountConsole({ backend: fakeBackend(snap), columns: 160, rows: 30 });
    const f = await t.waitFor('minio-1');
    expect(f).not.toContain('OUTAGE');
    expect(outageBannerLines(snap, Date.parse(snap.takenAt), 160)).toEqual([]);
  });

  it('the banner wraps at 80 columns and keeps its line count as the time words grow', async () => {
    const snap = await outageSnapshot();
    const taken = Date.parse(snap.takenAt);
    // Just now, then 23 h 59 min later across midnight: the widest time words, with the date.
    for (const at of [taken, taken + 23 * 3_600_000 + 59 * 60_000]) {
      const at80 = outageBannerLines(snap, at, 80).map((l) => l.text);
      expect(at80).toHaveLength(2);
      expect(at80[0]).toBe(`↯ OUTAGE portal ${PORTAL} down: 5 sessions FAILED`);
      expect(at80[1]).toMatch(/^ {2}first seen down .* UTC$/);
      expect(at80.every((l) => l.length <= 80)).toBe(true);
      expect(outageBannerLines(snap, at, 160)).toHaveLength(1);
    }
  });

  it('an unused session on the dead portal reads verdict outage on its row, never plain stale', async () => {
    // A leftover session nothing uses, logged in while the portal was up, then the portal dies.
    const opened = await openSimHost({ scenario: 'outage', clock: 'manual' });
    try {
      const sim = opened.host.sim;
      sim.portalUp(PORTAL);
      sim.addTarget({
        iqn: 'iqn.2026-01.lab.example:leftover',
        portals: [PORTAL],
        luns: [{ lun: 1, sizeBytes: 1 << 30 }],
      });
      await opened.host.run(['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', PORTAL]);
      await opened.host.run([
        'iscsiadm',
        '-m',
        'node',
        '-T',
        'iqn.2026-01.lab.example:leftover',
        '-p',
        PORTAL,
        '--login',
      ]);
      sim.portalDown(PORTAL);
      const s: Snapshot = takeSnapshot(opened.host, { kubeletRoot: '/var/lib/kubelet' });
      const leftover = s.sessions.find((x) => x.targetIqn.endsWith(':leftover'))!;
      expect(leftover.verdict).toBe('outage');
      const row = sessionRow(leftover, nodeProblems(s).sessions.get(leftover.key));
      expect(row.cells[7]).toBe('↯ outage');
      // The REASON column is the problems rule's: the dead portal first, then the rest.
      expect(row.cells[9]).toMatch(
        new RegExp(`^portal ${PORTAL.replace(/\./g, '\\.')} down; session FAILED`),
      );
      expect(row.fields.verdict).toBe('outage');
    } finally {
      await opened.close();
    }
  });

  it('session detail: kernel session and connection state, recovery_tmo and the time left', async () => {
    const snap = await outageSnapshot();
    const s1 = snap.sessions.find((x) => x.sid === 1)!;
    const at = Date.parse(s1.downSeenAt!) + 20_000;
    const text = sessionDetailLines(snap, s1, at).map((l) => l.text);
    expect(text).toContain('  kernel: session FAILED   connection connection1:0 failed   recovery_tmo 120 s');
    expect(text).toContain(`  portal ${PORTAL} down: 5 sessions FAILED (the whole portal)`);
    expect(text).toContain(
      '  recovery: the kernel fails I/O in at most 100 s (recovery_tmo 120 s, down for at least 20 s: the kernel records no failure time)',
    );
    // The console's first read found it down: a first sighting, 20 s before `at`, in UTC.
    expect(text).toContain(`  first seen down 20 s ago, at ${s1.downSeenAt!.slice(11, 16)} UTC`);
    // A healthy session shows the kernel line only.
    const s6 = snap.sessions.find((x) => x.sid === 6)!;
    const healthy = sessionDetailLines(snap, s6, at).map((l) => l.text);
    expect(healthy).toContain(
      '  kernel: session LOGGED_IN   connection connection6:0 up   recovery_tmo 120 s',
    );
    expect(healthy.some((l) => l.includes('recovery:'))).toBe(false);
  });

  it('the detail in the console shows the countdown; after replacement_timeout it says the kernel gave up', async () => {
    const snap = await outageSnapshot((sim) => sim.advance(120_000));
    t = await mountConsole({ backend: fakeBackend(snap), columns: 160, rows: 40 });
    // Expired: the banner says the kernel fails I/O (expired-banner.test.tsx has its texts).
    await t.waitFor('recovery_tmo expired on 10.0.0.10:3260');
    await t.press(KEY.enter);
    const f = await t.waitFor('recovery:');
    expect(f).toContain('kernel: session FREE');
    expect(f).toContain('recovery: recovery_tmo expired (session FREE): the kernel fails I/O');
    // The red banner's two lines and the reasons push the LUN table below 40 rows: a page down shows it.
    await t.press(KEY.pageDown);
    await t.waitFor(/LUN 1\s+\S+\s+sda\s+transport-offline/);
  });
});
