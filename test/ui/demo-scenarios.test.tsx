/**
 * The demos teach: each scenario's first frame, at 80×24 and 160×45, shows what a new user needs
 * for its task. Expected values come from the scenarios' definitions (src/sim/scenarios/), counted
 * by hand: scale has 8 sessions on the dead third array + 1 stuck = 9 failed, 2 maps × 2 sessions
 * degraded, 3 stale, 1 orphaned; empty serves 127.0.0.1:3260, 127.0.0.2:3260 and [fd00:10::10]:3260
 * with the lab's labuser/labsecret123 and discuser/discsecret456; outage's scratch-old session is
 * the failed one no pod uses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

const SIZES = [
  { columns: 80, rows: 24 },
  { columns: 160, rows: 45 },
] as const;

let t: DemoConsole | undefined;
// Removing the scale scenario's tree (~140,000 entries) takes a while on a loaded machine.
afterEach(async () => {
  await t?.close();
  t = undefined;
}, 300_000);

/** The frame as one line of words: text Ink wrapped at 80 columns reads as written. */
const words = (f: string) => f.replace(/\s+/g, ' ');

describe.each(SIZES)('demo first frames at $columns×$rows', (size) => {
  it('scale: a few failed, degraded, stale and an outage among 1,000, problems first', async () => {
    t = await mountDemo({ scenario: 'scale', ...size });
    const f = await t.waitFor((x) => x.includes('9 failed'), 60_000);
    expect(f).toContain('4 degraded');
    if (size.columns >= 160) expect(f).toMatch(/9 failed · 4 degraded · 3 stale · 1 orphaned/);
    // Not 1,000 red stale rows: at most the 3 stale sessions say so, and the first row is a failure.
    expect(f.match(/✗ stale|! stale|\bstale\b/g)?.length ?? 0).toBeLessThanOrEqual(4);
    const rows = f.split('\n').filter((l) => /^\s*›?\s*\d+\s/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatch(/failed/);
  }, 300_000);

  it('empty: says which portals and which lab CHAP credentials it serves, and that they are demo-only', async () => {
    t = await mountDemo({ scenario: 'empty', ...size });
    const f = words(await t.waitFor((x) => words(x).includes('not real secrets')));
    expect(f).toContain('no sessions: press a to attach a volume');
    for (const s of ['127.0.0.1:3260', '127.0.0.2:3260', '[fd00:10::10]:3260', 'labuser / labsecret123'])
      expect(f).toContain(s);
    expect(f).toContain('discovery CHAP discuser / discsecret456');
    expect(f).toContain('lab credentials of this demo only');
  }, 120_000);

  it('outage: the unused failed session offers the override of its outage refusal', async () => {
    t = await mountDemo({ scenario: 'outage', write: true, ...size });
    await t.press('/');
    await t.type('scratch');
    await t.press(KEY.enter);
    await t.waitFor((x) => !x.includes('postgres-data'));
    await t.press('c');
    const f = words(await t.waitFor('Plan: Clean up'));
    expect(f).toContain('[outage, can be overridden]');
    expect(f).not.toContain('[in-use]');
    // The footer offers the override act (cut to "o override…" at 80 columns).
    expect(f).toMatch(/o override/);
  }, 120_000);
});
