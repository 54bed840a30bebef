/**
 * NO_COLOR-safe emphasis: without colours chalk drops inverse and bold as well, so the active tab
 * is bracketed and the selection keeps its `›` gutter: both read in plain text, at 80×24 and 160×45.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { COLOR_THEME, MONO_THEME, tabLabel } from '../../src/ui/theme.js';
import { type Mounted, mountConsole } from './helpers/mount.js';

let t: Mounted | undefined;
afterEach(() => t?.unmount());

describe('tab labels', () => {
  it('bracket the active view without colours; same width either way', () => {
    expect(tabLabel(0, 'sessions', true, MONO_THEME)).toBe('[1 sessions]');
    expect(tabLabel(0, 'sessions', false, MONO_THEME)).toBe(' 1 sessions ');
    expect(tabLabel(0, 'sessions', true, COLOR_THEME)).toBe(' 1 sessions ');
    expect(tabLabel(1, 'targets', true, MONO_THEME)).toHaveLength(
      tabLabel(1, 'targets', false, MONO_THEME).length,
    );
  });
});

describe('the console without colours (keys in, frames out)', () => {
  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}×${rows}: the active tab is bracketed and follows the view; the selection has its gutter`, async () => {
      t = await mountConsole({ columns, rows, noColor: true });
      let f = await t.waitFor('[1 sessions]');
      expect(f).not.toContain('[2 targets]');
      expect(f).toMatch(/^›/m);
      await t.press('2');
      f = await t.waitFor('[2 targets]');
      // At 80 columns the other tabs shorten so the counter fits; the active one is whole.
      expect(f).toContain(columns >= 160 ? ' 1 sessions ' : ' 1 ses ');
      expect(f.split('\n')[1]).toMatch(/ 1 of \d+( (· )?[▲▼]\S+)?$/);
      expect(f).not.toContain('[1 sessions]');
    });
  }

  it('with colours the tab is not bracketed (inverse video marks it)', async () => {
    t = await mountConsole({ columns: 80, rows: 24 });
    const f = await t.waitFor('1 sessions');
    expect(f).not.toContain('[1 sessions]');
  });
});
