/**
 * The footer's key hints fit the terminal, at 80×24 and 160×45: whole hints only (never cut
 * mid-word), the keys the current view needs first (⏎, its actions), `? all keys` when some are
 * left out. Expected texts are written from the `--demo incident` scenario: its sessions take
 * attach, scan, rescan and restore read-only, and logout and cleanup too with writes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fitHints, type Hint } from '../../src/ui/footer-hints.js';
import { type DemoConsole, mountDemo } from './helpers/demo.js';

let c: DemoConsole | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const footer = (frame: string) => frame.trimEnd().split('\n').at(-1)!.trimEnd();

describe('footer hints in the console', () => {
  it('80x24: the list keeps ⏎ and the actions, whole, and points at ? for the rest', async () => {
    c = await mountDemo({ scenario: 'incident', columns: 80, rows: 24 });
    const f = await c.waitFor('? all keys');
    expect(footer(f)).toBe('⏎ detail · / filter · a attach · n scan · r rescan · e restore · ? all keys');
    await c.press('/');
    const typing = await c.waitFor('esc clear');
    // The field list is cut between its words; `?` is a character while typing, so no help hint.
    expect(footer(typing)).toBe(
      'field=value · !invert · ⏎ keep · esc clear · tab fields: sid target iqn portal …',
    );
  });

  it('80x24 with writes on: the destructive actions stay, the filter leaves first', async () => {
    c = await mountDemo({ scenario: 'incident', columns: 80, rows: 24, write: true });
    const f = await c.waitFor('c cleanup');
    expect(footer(f)).toBe('⏎ detail · a attach · n scan · r rescan · l logout · c cleanup · ? all keys');
  });

  it('160x45: every hint in its full form, as before', async () => {
    c = await mountDemo({ scenario: 'incident', columns: 160, rows: 45 });
    const f = await c.waitFor('q quit');
    expect(footer(f)).toBe(
      '⏎ detail · / filter · : view · space mark · a attach · n scan · r rescan · e restore · [ ] views · y json · ? help · q quit',
    );
  });
});

describe('fitHints', () => {
  const hints: Hint[] = [
    { text: '⏎ detail', rank: 0 },
    { text: 'space mark', short: '␣ mark', rank: 6 },
    { text: 'x delete-device', short: 'x delete', rank: 1 },
    { text: '? help', short: '? all keys', rank: -1 },
    { text: 'q quit', rank: 3 },
  ];
  const whole = new Set([
    '⏎ detail',
    'space mark',
    '␣ mark',
    'x delete-device',
    'x delete',
    '? help',
    '? all keys',
    'q quit',
  ]);

  it('at every width from 10 to 90 shows whole hints only, within the width, help always', () => {
    for (let width = 10; width <= 90; width++) {
      const text = fitHints(hints, width);
      expect([...text].length).toBeLessThanOrEqual(width);
      for (const piece of text.split(' · ')) expect(whole.has(piece), `${width}: ${piece}`).toBe(true);
      expect(text).toMatch(/\? (help|all keys)/);
    }
  });

  it('takes the short forms before leaving a hint out, and leaves the highest rank first', () => {
    expect(fitHints(hints, 80)).toBe('⏎ detail · space mark · x delete-device · ? help · q quit');
    expect(fitHints(hints, 50)).toBe('⏎ detail · ␣ mark · x delete · ? all keys · q quit');
    expect(fitHints(hints, 41)).toBe('⏎ detail · x delete · ? all keys · q quit');
    expect(fitHints(hints, 40)).toBe('⏎ detail · x delete · ? all keys');
    expect(fitHints(hints, 21)).toBe('⏎ detail · ? all keys');
  });
});
