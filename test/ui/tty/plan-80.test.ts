/**
 * The incident's cleanup plan for session 4 in a real 80×24 terminal (tmux, the built CLI): the
 * admin scrolls the plan and reads both iscsiadm steps, `--logout` and `-o delete`, in full, each
 * broken only between words.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flatText, readScrolled } from '../helpers/scrolled-dialog.js';
import { ttyCli } from './cli.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = await ttyCli();
const NODE = join(ROOT, 'node_modules/.bin/node');
const IQN = 'iqn.2026-01.lab.example:old-logs';

const reason = tmuxAvailable() ? undefined : 'tmux is not installed';
const term = new TmuxTerminal(80, 24, 'plan80');

afterAll(() => term.stop());

describe('cleanup plan at 80×24 (tmux, --demo incident)', () => {
  it.skipIf(reason !== undefined)(
    `reads --logout and -o delete in full${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      term.start(`'${NODE}' '${CLI}' --demo incident`, ROOT, { TERM: 'xterm-256color', LANG: 'C.UTF-8' });
      await term.waitFor('old-logs');
      term.keys('/');
      term.text('sid=4');
      term.keys('Enter');
      // Wait for the one row left (its TARGET without the node's IQN prefix).
      await term.waitFor((x) => /^›\s+4 (iqn|…:)/m.test(x) && !x.includes('postgres'));
      term.keys('c');
      // The whole dialog on screen (tmux may capture a frame half drawn): title, body and its scroll mark.
      const first = await term.waitFor(/Plan: Clean up[\s\S]*risk high[\s\S]*more lines/);
      let screen = first;
      const { lines: seen } = await readScrolled(first, async () => {
        const before = screen;
        term.keys('Down');
        screen = await term.waitFor((x) => x !== before);
        return screen;
      });
      for (const l of term.screen().split('\n')) expect(l.length).toBeLessThanOrEqual(80);
      const flat = flatText(seen);
      expect(flat).toContain(`$ iscsiadm -m node -p 10.0.0.10:3260 -T ${IQN} --logout -I default`);
      expect(flat).toContain(`$ iscsiadm -m node -p 10.0.0.10:3260 -T ${IQN} -o delete -I default`);
      expect(seen.join('\n')).not.toMatch(/old-l…/);
      term.keys('Escape');
      await term.waitFor((x) => !x.includes('Plan: Clean up'));
      term.keys('q');
      await term.waitFor('EXITED 0');
    },
    120_000,
  );
});
