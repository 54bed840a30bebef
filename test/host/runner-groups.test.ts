/**
 * The runner's process groups: every command runs in a group of its own (so a terminal's Ctrl-C,
 * sent to the console's group, never reaches it), is listed while it runs, and a timeout kills its
 * whole group — grandchildren included, and SIGKILL for a child that ignores SIGTERM.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunner, runningCommands } from '../../src/engine/host/runner.js';
import { until } from '../helpers/cli-bundle.js';

const dir = fs.mkdtempSync(join(tmpdir(), 'runner-groups-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead for our purpose (its parent has not reaped it yet).
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}
function pgrp(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

describe('runner process groups', () => {
  it('a command runs in its own process group, is listed while it runs, and reports its pid', async () => {
    const run = createRunner({ mode: 'direct' });
    const seen: [number, boolean][] = [];
    const f = join(dir, 'own-group');
    spawnSync('mkfifo', [`${f}.fifo`]);
    const p = run(['sh', '-c', `echo $$ > ${f}.tmp && mv ${f}.tmp ${f} && read _ < ${f}.fifo`], {
      onChild: (pid, exited) => seen.push([pid, exited]),
    });
    await until('the command to start', () => fs.existsSync(f));
    const pid = Number(fs.readFileSync(f, 'utf8'));
    expect(pgrp(pid)).toBe(pid);
    expect(pgrp(pid)).not.toBe(pgrp(process.pid));
    expect(runningCommands()).toContainEqual({ pid, argv: expect.arrayContaining(['sh', '-c']) });
    fs.writeFileSync(`${f}.fifo`, 'go\n');
    expect((await p).exitCode).toBe(0);
    expect(seen).toEqual([
      [pid, false],
      [pid, true],
    ]);
    expect(runningCommands().some((c) => c.pid === pid)).toBe(false);
  });

  it('a timeout kills the whole group: the grandchild too, and SIGKILL for one that ignores SIGTERM', async () => {
    const run = createRunner({ mode: 'direct', killGraceMs: 100 });
    const f = join(dir, 'grandchild');
    const r = await run(['sh', '-c', `trap '' TERM; sleep 600 & echo $! > ${f}; wait`], { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    const grandchild = Number(fs.readFileSync(f, 'utf8'));
    await until('the grandchild to be gone', () => !alive(grandchild));
  });
});
