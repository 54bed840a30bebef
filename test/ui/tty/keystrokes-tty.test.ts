/**
 * A new user's tasks on the demos, counted in keystrokes from the first frame, in a real terminal
 * at 80×24 (tmux, built CLI, started with --write so the count is the task's own; started
 * read-only, `:write⏎` adds 7 keys). Each task is sent as exactly the keys listed and its outcome
 * asserted on screen, so the counts below are proven:
 *
 * | task | demo | keys | count |
 * | --- | --- | --- | --- |
 * | why the node is unhealthy | incident | none: banner, summary, REASON and the strip under the table | 0 |
 * | clean up the stale session (sid 4, 4th row by severity) | incident | `j j j c 4 ⏎` | 6 |
 * | override an outage refusal (scratch-old, sid 5, 5th row) | outage | `j j j j c o` + `override sim-node-1` + `⏎` | 26 |
 * | the pod behind sdc, from the Devices view | incident | `4 j j j` (the strip names the pod) | 4 |
 * | clean up a CSI leftover dir (pv-csi-gone, first in Volumes) | csi | `3 c` + `sim-node-1` + `⏎` | 13 |
 *
 * The typed tokens (the sid, the hostname, `override <hostname>`) are the consent policy's
 * (src/engine/actions/consent.ts): what a destructive plan asks by design. Keys are sent one
 * keystroke at a time; where the console drops keys typed before a plan is drawn (consent is given
 * to a plan on the screen), the test waits for the plan before typing, as a person reads it first.
 * Expected texts come from the scenarios (src/sim/scenarios/: incident's portal 10.0.0.12:3260 down,
 * sdc a path of streaming/kafka-0's map; outage's scratch-old; csi's pv-csi-gone).
 */
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ttyCli } from './cli.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = await ttyCli();
const NODE = join(ROOT, 'node_modules/.bin/node');
const reason = tmuxAvailable() ? undefined : 'tmux is not installed';

let term: TmuxTerminal | undefined;
afterEach(() => term?.stop());

/** One keystroke: a tmux key name (`Enter`) or one character. */
type Key = string;
const NAMED = new Set(['Enter', 'Escape', 'Tab']);

/** The keystrokes of a typed text, one per character. */
const chars = (text: string): Key[] => [...text];

let counted = 0;
function press(t: TmuxTerminal, ...keys: Key[]): void {
  for (const k of keys) {
    if (NAMED.has(k)) t.keys(k);
    else t.text(k);
    counted++;
  }
}

async function open(demo: string, tag: string): Promise<TmuxTerminal> {
  const t = new TmuxTerminal(80, 24, tag);
  term = t;
  t.start(`'${NODE}' '${CLI}' --demo ${demo} --write`, ROOT, { TERM: 'xterm-256color', LANG: 'C.UTF-8' });
  // The first frame with the full read (actions are offered from then on).
  await t.waitFor(/WRITE[\s\S]*full +\d+\S* ago[\s\S]*⏎ detail/);
  counted = 0;
  return t;
}

describe.skipIf(reason !== undefined)(
  `a new user's tasks in keystrokes at 80×24 (tmux)${reason ? ` (skipped: ${reason})` : ''}`,
  () => {
    it('why the node is unhealthy: 0 keys', async () => {
      const t = await open('incident', 'why');
      const s = await t.waitFor('› REASON portal 10.0.0.12:3260 down; session FAILED; sdg blocked');
      expect(s).toContain('↯ OUTAGE portal 10.0.0.12:3260 down: 1 session FAILED');
      expect(s).toContain('✗ 2 failed · 1 degraded · 1 stale · 1 orphaned');
      expect(counted).toBe(0);
    }, 120_000);

    it('clean up the stale session: 6 keys', async () => {
      const t = await open('incident', 'stale');
      press(t, 'j', 'j', 'j');
      await t.waitFor(/^›\s+4 …:old-logs/m);
      press(t, 'c');
      await t.waitFor('Type 4 to apply on sim-node-1');
      press(t, '4', 'Enter');
      const s = await t.waitFor('✓ Clean up session succeeded', 60_000);
      expect(s).toContain('ok: session 4 is logged out');
      expect(counted).toBe(6);
    }, 120_000);

    it('override an outage refusal: 26 keys', async () => {
      const t = await open('outage', 'override');
      press(t, 'j', 'j', 'j', 'j');
      await t.waitFor(/^›\s+5 …:scratch/m);
      press(t, 'c');
      await t.waitFor('o overrides');
      press(t, 'o');
      await t.waitFor('Type override sim-node-1 to override');
      press(t, ...chars('override sim-node-1'), 'Enter');
      const s = await t.waitFor('✓ Clean up session succeeded', 60_000);
      expect(s).toContain('Done: Clean up session');
      expect(counted).toBe(26);
    }, 120_000);

    it('the pod behind sdc from the Devices view: 4 keys', async () => {
      const t = await open('incident', 'pod');
      press(t, '4', 'j', 'j', 'j');
      const s = await t.waitFor('› PROBLEMS ! sdc transport-offline  ·  POD streaming/kafka-0');
      expect(s).toMatch(/^› └ sdc\s+transport-offline/m);
      expect(counted).toBe(4);
    }, 120_000);

    it('clean up a CSI leftover dir: 13 keys', async () => {
      const t = await open('csi', 'csidir');
      press(t, '3');
      await t.waitFor(/^› pv-csi-gone/m);
      press(t, 'c');
      await t.waitFor('Type sim-node-1 to apply on sim-node-1');
      press(t, ...chars('sim-node-1'), 'Enter');
      const s = await t.waitFor('✓ Clean up CSI volume dirs succeeded', 60_000);
      expect(s).toContain('Done: Clean up CSI volume dirs');
      expect(counted).toBe(13);
    }, 120_000);
  },
);
