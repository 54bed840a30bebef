/**
 * Typed consent against typeahead in a real terminal (tmux) on the built CLI: `c<sid>⏎` sent in one
 * send-keys (as a paste, or keys buffered over a laggy SSH link would arrive) opens the cleanup's
 * plan, applies nothing, and the dialog says the keys were ignored; the stale session stays.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ttyCli } from './cli.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = await ttyCli();
const NODE = join(ROOT, 'node_modules/.bin/node');
const reason = tmuxAvailable() ? undefined : 'tmux is not installed';
const term = new TmuxTerminal(120, 40, 'typeahead');
const tmp = fs.mkdtempSync(join(tmpdir(), 'ic-typeahead-'));

afterAll(() => {
  term.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('typed consent and typeahead (tmux, --demo incident --write)', () => {
  it.skipIf(reason !== undefined)(
    `c<sid>⏎ in one burst does not clean up the session${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      term.start(`'${NODE}' '${CLI}' --demo incident --write`, ROOT, {
        TERM: 'xterm-256color',
        LANG: 'C.UTF-8',
        TMPDIR: tmp,
      });
      await term.waitFor(/SID TARGET[\s\S]*△ stale/);
      term.keys('/');
      term.text('verdict=stale');
      let s = await term.waitFor(/filter: verdict=stale[\s\S]*1 of 1 \(\d+ total\)/);
      const sid = /›\s+(\d+) (?:iqn|…:)/.exec(s)?.[1];
      expect(sid).toBeDefined();
      term.keys('Enter');
      await term.waitFor((x) => !x.includes('type to filter'));

      // One send-keys: the action key, the sid and Enter reach the console in one burst.
      term.keys(`c${sid}`, 'Enter');
      s = await term.waitFor(/keys? typed before the plan was shown (was|were) ignored/);
      expect(s).toContain(`Type ${sid} to apply on`);
      expect(s).not.toMatch(/Clean up session (succeeded|failed)/);

      // Cancelled: the stale session is still listed (nothing was logged out).
      term.keys('Escape');
      s = await term.waitFor('Clean up session cancelled');
      expect(s).toMatch(new RegExp(`›\\s+${sid} (?:iqn|…:)[\\s\\S]*△ stale`));
      term.keys('q');
      await term.waitFor(/EXITED 0/);
    },
    60_000,
  );
});
