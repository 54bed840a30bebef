/**
 * Keys in, frames out: the incident's cleanup plan for session 4 in the console at 80×24 and
 * 160×45, through the real engine on the simulator. Every piece of the wrapped plan is reachable by
 * scrolling, and both iscsiadm steps (`--logout`, `-o delete`) read in full; nothing is cut with `…`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';
import { flatText, readScrolled } from './helpers/scrolled-dialog.js';

const IQN = 'iqn.2026-01.lab.example:old-logs';
let t: DemoConsole | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('console: the cleanup plan of session 4 reads in full', () => {
  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}×${rows}: scrolling reaches every line; --logout and -o delete are whole`, async () => {
      const c = await mountDemo({ scenario: 'incident', columns, rows });
      t = c;
      await c.waitFor('old-logs');
      await c.press('/');
      await c.type('sid=4');
      await c.press(KEY.enter);
      await c.waitFor((f) => !f.includes('postgres-data'));
      await c.press('c');
      const first = await c.waitFor('Plan: Clean up');
      const { lines: seen, last } = await readScrolled(first, async () => {
        await c.press(KEY.down);
        return c.lastFrame();
      });
      expect(last).not.toContain('more lines');
      const text = seen.join('\n');
      expect(text).not.toMatch(/…(?! \d+ more)/);
      expect(text).toContain('Undo by hand:');
      expect(text).toContain('--login');
      const flat = flatText(seen);
      expect(flat).toContain(`$ iscsiadm -m node -p 10.0.0.10:3260 -T ${IQN} --logout -I default`);
      expect(flat).toContain(`$ iscsiadm -m node -p 10.0.0.10:3260 -T ${IQN} -o delete -I default`);
      if (columns >= 160) {
        // Wide enough: each command on one line, as the CLI prints it.
        expect(seen.some((l) => l.endsWith(`-T ${IQN} --logout -I default`))).toBe(true);
        expect(seen.some((l) => l.endsWith(`-T ${IQN} -o delete -I default`))).toBe(true);
      }
    }, 60_000);
  }
});
