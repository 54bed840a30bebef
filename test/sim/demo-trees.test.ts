/**
 * A `--demo` tree left by a killed process (SIGKILL: no chance to clean up) is removed by the next
 * demo start; a tree whose owner runs, or that cannot be judged, is never touched.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSimHost } from '../../src/sim/index.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function parentDir(): string {
  const d = fs.mkdtempSync(join(tmpdir(), 'demo-trees-test-'));
  made.push(d);
  return d;
}

/** A tree as a demo leaves it: root/ and state/ inside, and (when given) its owner line. */
function fakeTree(parent: string, name: string, owner?: string): string {
  const dir = join(parent, `iscsi-console-sim-${name}`);
  fs.mkdirSync(join(dir, 'root/sys/class'), { recursive: true });
  fs.mkdirSync(join(dir, 'state'));
  fs.writeFileSync(join(dir, 'root/sys/class/x'), 'x');
  if (owner !== undefined) fs.writeFileSync(join(dir, 'owner'), owner);
  return dir;
}

/** The pid of a process that has ended (a child that ran and was reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

/** This process's start time in clock ticks (/proc/self/stat field 22), as the owner file says it. */
function myStart(): string {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

describe('demo trees across processes', () => {
  it('the next demo start removes a tree whose owner was killed, and keeps the rest', async () => {
    const parent = parentDir();
    const stale = fakeTree(parent, 'KILLED', `${deadPid()} 12345\n`);
    const reused = fakeTree(parent, 'REUSED', `${process.pid} 1\n`); // our pid, another start: reused pid
    const live = fakeTree(parent, 'LIVE', `${process.pid} ${myStart()}\n`);
    const creating = fakeTree(parent, 'NOOWNER'); // no owner yet: being created, or not ours to judge
    const garbage = fakeTree(parent, 'GARBAGE', '{"pid":1}');
    const other = join(parent, 'other-dir');
    fs.mkdirSync(other);
    fs.writeFileSync(join(other, 'owner'), `${deadPid()} 1\n`);

    const { close } = await openSimHost({ scenario: 'healthy', dir: parent, clock: 'manual' });
    try {
      expect(fs.existsSync(stale)).toBe(false);
      expect(fs.existsSync(reused)).toBe(false);
      expect(fs.existsSync(live)).toBe(true);
      expect(fs.existsSync(creating)).toBe(true);
      expect(fs.existsSync(garbage)).toBe(true);
      expect(fs.existsSync(other)).toBe(true);
      // The new tree names this process as its owner, so a later start leaves it alone.
      const mine = fs
        .readdirSync(parent)
        .filter((n) => n.startsWith('iscsi-console-sim-') && !/LIVE|NOOWNER|GARBAGE/.test(n));
      expect(mine).toHaveLength(1);
      expect(fs.readFileSync(join(parent, mine[0]!, 'owner'), 'utf8')).toBe(`${process.pid} ${myStart()}\n`);
    } finally {
      await close();
    }
    // close() removes its own tree, as before.
    expect(fs.readdirSync(parent).filter((n) => !/LIVE|NOOWNER|GARBAGE|other/.test(n))).toEqual([]);
  });

  it('a link named like a tree is not followed or removed', async () => {
    const parent = parentDir();
    const victim = fakeTree(parentDir(), 'VICTIM', `${deadPid()} 1\n`);
    fs.symlinkSync(victim, join(parent, 'iscsi-console-sim-LINK'));
    const { close } = await openSimHost({ scenario: 'healthy', dir: parent, clock: 'manual' });
    await close();
    expect(fs.existsSync(join(victim, 'root/sys/class/x'))).toBe(true);
    expect(fs.lstatSync(join(parent, 'iscsi-console-sim-LINK')).isSymbolicLink()).toBe(true);
  });
});
