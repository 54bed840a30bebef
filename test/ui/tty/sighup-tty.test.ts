/**
 * The console when its terminal hangs up (the SSH session drops, the window closes), in a real
 * terminal (tmux) on the built CLI: SIGHUP is handled like SIGTERM — the terminal is restored (the
 * alternate screen left), the exit code is 129 (128 + SIGHUP) and the `--demo` tree is removed. The
 * trees go to a private TMPDIR, so the test sees its own and no other demo's; the tree's `owner`
 * file names the console's pid.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../../helpers/cli-bundle.js';
import { ttyCli } from './cli.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = await ttyCli();
const NODE = join(ROOT, 'node_modules/.bin/node');
const reason = tmuxAvailable() ? undefined : 'tmux is not installed';
const terms: TmuxTerminal[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const t of terms) t.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function trees(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.startsWith('iscsi-console-sim-'));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The console on the incident demo in its own terminal; resolves with its pid once it shows the node. */
async function startConsole(tag: string): Promise<{ term: TmuxTerminal; tmp: string; pid: number }> {
  const tmp = fs.mkdtempSync(join(tmpdir(), 'ic-sighup-'));
  dirs.push(tmp);
  const term = new TmuxTerminal(120, 40, tag);
  terms.push(term);
  term.start(`'${NODE}' '${CLI}' --demo incident --write`, ROOT, {
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TMPDIR: tmp,
  });
  await term.waitFor(/SID TARGET[\s\S]*△ stale/);
  expect(term.alternateOn()).toBe(true);
  const [tree] = trees(tmp);
  expect(tree).toBeDefined();
  const pid = Number(fs.readFileSync(join(tmp, tree!, 'owner'), 'utf8').split(' ')[0]);
  expect(alive(pid)).toBe(true);
  return { term, tmp, pid };
}

describe('the console when the terminal hangs up (tmux, --demo incident)', () => {
  it.skipIf(reason !== undefined)(
    `SIGHUP restores the terminal, removes the demo tree and exits 129${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      const { term, tmp, pid } = await startConsole('hup');
      process.kill(pid, 'SIGHUP');
      await term.waitFor(/EXITED 129/);
      expect(term.alternateOn(), 'the alternate screen is left').toBe(false);
      expect(trees(tmp), 'the demo tree is removed').toEqual([]);
    },
    60_000,
  );

  it.skipIf(reason !== undefined)(
    `the terminal closing (tmux kill-session) ends the console and removes its demo tree${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      const { term, tmp, pid } = await startConsole('gone');
      term.stop();
      await until('the console to end', () => !alive(pid));
      expect(trees(tmp), 'the demo tree is removed').toEqual([]);
    },
    60_000,
  );
});
