/**
 * The k9s keys in a real terminal at 80×24 with NO_COLOR=1 (tmux, built CLI, --demo incident):
 * the cursor row keeps its `›` as it moves (no inverse video survives NO_COLOR), `]` and `[`
 * switch views, `y` opens the session's JSON, an unknown key flashes, and the status bar shows
 * both stamps within 80 columns.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ttyCli } from './cli.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = await ttyCli();
const NODE = join(ROOT, 'node_modules/.bin/node');

const reason = tmuxAvailable() ? undefined : 'tmux is not installed';
const term = new TmuxTerminal(80, 24, 'keys80');

afterAll(() => term.stop());

describe('k9s keys at 80×24 without colours (tmux)', () => {
  it.skipIf(reason !== undefined)(
    `marks the cursor row in plain text and answers ] [ y and an unknown key${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      term.start(`'${NODE}' '${CLI}' --demo incident`, ROOT, {
        TERM: 'xterm-256color',
        LANG: 'C.UTF-8',
        NO_COLOR: '1',
      });
      let s = await term.waitFor(/polled +\d+\S* · full +\d+\S* ago[\s\S]*△ stale/);
      expect(s.split('\n')[0]!.length).toBeLessThanOrEqual(80);
      // Problems first: session 7 (portal down), then 3 (failed path); IQNs elided.
      expect(s).toMatch(/^›\s+7 …:/m);
      term.keys('j');
      s = await term.waitFor(/^›\s+3 …:/m);
      expect(s).not.toMatch(/^›\s+7 …:/m);
      term.keys(']');
      await term.waitFor(/^\s+TARGET\s+PORTAL\s+HOST/m);
      term.keys('[');
      await term.waitFor('VERDICT');
      term.keys('y');
      s = await term.waitFor('JSON · status --json · .sessions[2]');
      expect(s).toContain('"sid": 3,');
      term.keys('Escape');
      await term.waitFor((x) => !x.includes('JSON ·'));
      term.keys('b');
      await term.waitFor('unknown key — ? for help');
      term.keys('q');
      await term.waitFor('EXITED 0');
    },
    120_000,
  );
});
