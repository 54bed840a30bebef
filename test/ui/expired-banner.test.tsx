/**
 * The outage whose recovery_tmo expired (the `outage` demo, its timer run out in the simulator, so
 * the kernel model turns the sessions FREE and their devices transport-offline): the banner is red
 * and says first, within 80 columns, that the kernel fails I/O now, then the pods that get EIO and
 * how long it has been down, in UTC; the summary leaves the portal to the banner. A fresh outage
 * (timer still running) keeps the one quieter line. Expected texts are written from the scenario
 * (src/sim/scenarios/outage.ts: five sessions on 10.0.0.10:3260, four of them the pods `<name>-pod`
 * in `default`, and scratch-old, no pod's).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SimHost } from '../../src/sim/index.js';
import { type DemoConsole, mountDemo } from './helpers/demo.js';

let c: DemoConsole | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const HEAD = '✗ recovery_tmo expired on 10.0.0.10:3260: the kernel fails I/O now';
const PODS =
  'EIO: pods default/elastic-0-pod, default/elastic-1-pod, default/postgres-data-pod, default/redis-data-pod';

/** The outage demo with recovery_tmo (120 s) run out before the console's first read, read 14 min later. */
async function expired(columns: number, rows: number): Promise<{ c: DemoConsole; firstRead: string }> {
  let host: SimHost | undefined;
  const opened = await mountDemo({
    scenario: 'outage',
    columns,
    rows,
    prepare: (h) => {
      host = h;
      h.sim.advance(130_000);
    },
    clock: () => host!.now() + 14 * 60_000,
  });
  const firstRead = opened.backend.store.getState().snapshot!.takenAt.slice(11, 16);
  return { c: opened, firstRead };
}

describe('expired outage banner', () => {
  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}x${rows}: red banner, the decisive line whole, the pods and a first sighting in UTC`, async () => {
      const r = await expired(columns, rows);
      c = r.c;
      const f = await c.waitFor('recovery_tmo expired');
      const lines = f.split('\n');
      // Status bar, tabs, then the banner's two lines, then the summary line.
      expect(lines[2]!.trimEnd()).toBe(HEAD);
      const tail = `  ${PODS} · 5 sessions · first seen down 14 min ago, at ${r.firstRead} UTC`;
      expect(lines[3]!.trimEnd()).toBe(tail.length <= columns ? tail : `${tail.slice(0, columns - 1)}…`);
      // The summary leaves the portal to the banner: the counts alone, worst first.
      expect(lines[4]).toMatch(/^✗ 5 failed(\s|$)/);
      expect(lines[4]).not.toContain('10.0.0.10');
      expect(lines.length).toBeLessThanOrEqual(rows);
    });
  }

  it('80x24: a fresh outage (recovery still running) is one line, not the red one', async () => {
    c = await mountDemo({ scenario: 'outage', columns: 80, rows: 24 });
    const f = await c.waitFor('OUTAGE');
    const lines = f.split('\n');
    expect(lines[2]).toMatch(/^↯ OUTAGE portal 10\.0\.0\.10:3260 down: 5 sessions FAILED · first seen down/);
    expect(f).not.toContain('recovery_tmo expired');
    expect(lines[3]).toMatch(/^✗ 5 failed/);
  });
});
