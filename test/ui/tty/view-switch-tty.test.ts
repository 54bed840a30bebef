/**
 * No key dropped on a view switch, in a real terminal (tmux, built CLI, --demo incident, 80×24):
 * `1Sgjjd` sent from the Targets view in ONE send-keys (keys typed fast, or buffered over SSH)
 * switches to Sessions, sorts by SID, goes to the top, moves two rows and describes the row there:
 * session 3's detail, not the row the Targets view had at that place.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ttyCli } from './cli.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = await ttyCli();
const NODE = join(ROOT, 'node_modules/.bin/node');

const reason = tmuxAvailable() ? undefined : 'tmux is not installed';
const term = new TmuxTerminal(80, 24, 'viewswitch');

afterAll(() => term.stop());

describe('keys in one read after a view switch (tmux, 80×24)', () => {
  it.skipIf(reason !== undefined)(
    `applies every key of 1Sgjjd to the Sessions view${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      term.start(`'${NODE}' '${CLI}' --demo incident`, ROOT, { TERM: 'xterm-256color', LANG: 'C.UTF-8' });
      // The first frame: the list, with its stale row (severity marks stale △, a warning, not ✗).
      await term.waitFor(/SID TARGET[\s\S]*△ stale/);
      term.keys('2');
      await term.waitFor(/^\s+TARGET\s+PORTAL\s+HOST/m);
      // One send-keys: the view switch and the four keys after it arrive together.
      term.text('1Sgjjd');
      const s = await term.waitFor(/^Session 3 /m);
      expect(s).toMatch(/\bdetail\b/);
      term.keys('Escape');
      const list = await term.waitFor(/▲SID/);
      // Back on the list, sorted by SID, the cursor on session 3.
      expect(list).toMatch(/^›\s+3 /m);
      term.keys('q');
      await term.waitFor('EXITED 0');
    },
    120_000,
  );
});
