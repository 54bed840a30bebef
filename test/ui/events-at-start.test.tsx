/**
 * An incident present when the console starts is on the Events view from the first full read:
 * the demo incident node (src/sim/scenarios/incident.ts) has portal 10.0.0.12:3260 down (session 7),
 * session 3 with its device transport-offline, session 2 with a map short of a path, session 4 stale
 * (no kubelet volume) and session 5 orphaned (a kubelet dir with no pod); sessions 1 and 6 are fine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';

describe.each([
  { columns: 80, rows: 24 },
  { columns: 160, rows: 45 },
])('events at start at $columns×$rows', (size) => {
  let t: DemoConsole;
  beforeAll(async () => {
    t = await mountDemo({ scenario: 'incident', ...size });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('the Events view lists the problems that were there at start, nothing for the healthy sessions', async () => {
    await t.press('6');
    // What and why come first: they are on screen at 80 columns too.
    const f = await t.waitFor(
      (x) => t.ui.getState().view === 'events' && x.includes('session 4 stale at start'),
    );
    expect(f).toContain('portal 10.0.0.12:3260 down: 1 session FAILED');
    expect(f).toContain('session 3 failed at start: sdc transport-offline');
    expect(f).toContain('session 5 orphaned at start: kubelet dir, no pod');
    const events = t.backend.store.getState().events;
    const messages = events.map((e) => e.message);
    for (const sid of [7, 3, 2, 4, 5])
      expect(
        messages.filter((m) => m.startsWith(`session ${sid} `)),
        `session ${sid}`,
      ).toHaveLength(1);
    for (const sid of [1, 6]) expect(messages.some((m) => m.startsWith(`session ${sid} `))).toBe(false);
    expect(messages).toContain(
      'session 4 stale at start: no kubelet volume — iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260',
    );
    // Read-only and nothing ran: these are what the first read found, not actions.
    expect(events.filter((e) => e.kind === 'action')).toEqual([]);
  }, 60_000);
});
