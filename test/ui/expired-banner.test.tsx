/**
 * The outage whose recovery_tmo expired (the `outage` demo, its timer run out in the simulator, so
 * the kernel model turns the sessions FREE and their devices transport-offline): the banner is red
 * and says first, within 80 columns, that the kernel fails I/O now, then how long it has been down,
 * in UTC, and the pods that get EIO, wrapped rather than cut; the summary leaves the portal to the
 * banner. A fresh outage (timer still running) keeps the quieter banner, its time on a line of its
 * own at 80 columns. Expected texts are written from the scenario
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

/** The banner's lines at each size, written out: the time first and whole, the pods wrapped, none cut. */
function expiredLines(columns: number, firstRead: string): string[] {
  const time = `  first seen down 14 min ago, at ${firstRead} UTC · 5 sessions`;
  if (columns >= 160) return [HEAD, time, `  ${PODS}`];
  return [
    HEAD,
    time,
    '  EIO: pods default/elastic-0-pod, default/elastic-1-pod,',
    '    default/postgres-data-pod, default/redis-data-pod',
  ];
}

describe('expired outage banner', () => {
  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}x${rows}: red banner, the decisive line whole, a first sighting in UTC and every pod, nothing cut`, async () => {
      const r = await expired(columns, rows);
      c = r.c;
      const f = await c.waitFor('recovery_tmo expired');
      const lines = f.split('\n');
      // Status bar, tabs, then the banner's lines, then the summary line.
      const want = expiredLines(columns, r.firstRead);
      expect(lines.slice(2, 2 + want.length).map((l) => l.trimEnd())).toEqual(want);
      // The summary leaves the portal to the banner: the counts alone, worst first.
      const summary = lines[2 + want.length]!;
      expect(summary).toMatch(/^✗ 5 failed(\s|$)/);
      expect(summary).not.toContain('10.0.0.10');
      expect(lines.length).toBeLessThanOrEqual(rows);
    });
  }

  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}x${rows}: a fresh outage (recovery still running) is the quieter banner, its time whole with its zone`, async () => {
      let host: SimHost | undefined;
      c = await mountDemo({
        scenario: 'outage',
        columns,
        rows,
        prepare: (h) => {
          host = h;
        },
        clock: () => host!.now() + 3 * 60_000,
      });
      const firstRead = c.backend.store.getState().snapshot!.takenAt.slice(11, 16);
      const f = await c.waitFor('OUTAGE');
      const lines = f.split('\n');
      const head = '↯ OUTAGE portal 10.0.0.10:3260 down: 5 sessions FAILED';
      const time = `first seen down 3 min ago, at ${firstRead} UTC`;
      // 80 columns: the time on a line of its own; 160: one line.
      const want = columns >= 160 ? [`${head} · ${time}`] : [head, `  ${time}`];
      expect(lines.slice(2, 2 + want.length).map((l) => l.trimEnd())).toEqual(want);
      expect(f).not.toContain('recovery_tmo expired');
      expect(lines[2 + want.length]).toMatch(/^✗ 5 failed/);
      expect(lines.length).toBeLessThanOrEqual(rows);
    });
  }
});
