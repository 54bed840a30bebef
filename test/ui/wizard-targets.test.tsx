/**
 * A portal that offers thousands of targets (5,006 here, as a big array's SendTargets reply can):
 * the wizard's target list reaches every one of them at 80×24 — PgDn/PgUp by a page, End to the
 * last target, Home back to the first — and says which ones are on screen. On the simulator, whose
 * portal answers the discovery the wizard runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { target } from '../../src/sim/scenarios/lab.js';
import { mountDemo } from './helpers/demo.js';
import { KEY, type Tui } from './helpers/render-tui.js';

const PORTAL = '127.0.0.9:3260';
const COUNT = 5006;
const name = (i: number) => `many-${String(i).padStart(4, '0')}`;
const HOME = '\x1b[H';
const END = '\x1b[F';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The row the cursor is on. */
function focused(t: Tui): string {
  return (
    t
      .lastFrame()
      .split('\n')
      .find((l) => l.includes('› iqn.')) ?? ''
  );
}

describe('attach wizard: a portal offering 5,006 targets at 80×24', () => {
  it('scrolls from the first target to the last and back, saying where it is', async () => {
    const d = await mountDemo({ scenario: 'empty', write: true, columns: 80, rows: 24 });
    close = d.close;
    for (let i = 0; i < COUNT; i++) d.host.sim.addTarget(target(name(i), [PORTAL], [1]));
    await d.press('a');
    await d.waitFor('[1 Portal]');
    await d.type(PORTAL);
    await d.press(KEY.enter);
    await d.waitFor('[2 Discovery]');
    await d.press(KEY.enter);
    await d.waitFor((f) => f.includes('[3 Target]') && f.includes(`${COUNT} targets offered`), 60_000);
    expect(focused(d)).toContain(`:${name(0)} `);
    expect(d.lastFrame()).toMatch(new RegExp(`Targets 1–\\d+ of ${COUNT}`));

    await d.press(KEY.pageDown);
    await d.waitFor(() => focused(d).includes(`:${name(10)} `));

    await d.press(END);
    await d.waitFor(() => focused(d).includes(`:${name(COUNT - 1)} `));
    expect(d.lastFrame()).toMatch(new RegExp(`Targets \\d+–${COUNT} of ${COUNT}`));
    expect(
      d
        .lastFrame()
        .split('\n')
        .every((l) => [...l].length <= 80),
    ).toBe(true);

    await d.press(KEY.pageUp);
    await d.waitFor(() => focused(d).includes(`:${name(COUNT - 11)} `));

    await d.press(HOME);
    await d.waitFor(() => focused(d).includes(`:${name(0)} `));
    expect(d.lastFrame()).toMatch(new RegExp(`Targets 1–\\d+ of ${COUNT}`));

    // The last target is picked like any other.
    await d.press(END, KEY.enter);
    await d.waitFor((f) => f.includes('[4 LUN]') && f.includes(name(COUNT - 1)));
  }, 120_000);
});
