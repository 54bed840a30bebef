/**
 * Interrupts at step boundaries, through the real CLI process on a `--root` tree with real child
 * processes on PATH, signalled the way a terminal signals Ctrl-C: to the CLI's whole process group.
 * The fake `iscsiadm` and `blockdev` log their start and end and block on a FIFO (no sleeps) when
 * they run the step under test, so the signal always lands while that step's command runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { acquireLocks, lockPath } from '../../src/engine/actions/lock.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { buildCliBundle, until } from '../helpers/cli-bundle.js';
import { fakeTime } from '../helpers/fake-time.js';
import { FixtureRoot, IQN1 } from '../snapshot/fixture-root.js';

const NODE = resolve('node_modules/.bin/node');
let dir: string;
let cli: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(join(tmpdir(), 'interrupt-'));
  cli = await buildCliBundle(dir);
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Case {
  name: string;
  /** The tool whose call blocks, and the argument that picks the call. */
  tool: 'iscsiadm' | 'blockdev';
  match: string;
  signal: NodeJS.Signals;
  /** The blocked child ignores SIGTERM and SIGINT itself. */
  deaf?: boolean;
  /** Send a second signal while the command runs. */
  twice?: boolean;
  /** The exit code (default 130, interrupted). */
  exit?: number;
  /** Log lines that must not appear: commands of later steps. */
  notRun: RegExp;
  /** The journal step that must be done, and one after it that must not. */
  doneStep: RegExp;
  laterStep: RegExp;
}

const CASES: Case[] = [
  {
    name: 'a slow iscsiadm --logout, SIGINT twice',
    tool: 'iscsiadm',
    match: '--logout',
    signal: 'SIGINT',
    twice: true,
    notRun: /-o delete/,
    doneStep: /^logout:/,
    laterStep: /^delete-record:/,
  },
  {
    name: 'a slow blockdev --flushbufs, SIGINT',
    tool: 'blockdev',
    match: '/dev/sda',
    signal: 'SIGINT',
    notRun: /sdb|iscsiadm/,
    doneStep: /^flush:sda|sda/,
    laterStep: /^(logout|delete-record):/,
  },
  {
    name: 'a logout child that ignores SIGTERM, SIGTERM to the group',
    tool: 'iscsiadm',
    match: '--logout',
    signal: 'SIGTERM',
    deaf: true,
    notRun: /-o delete/,
    doneStep: /^logout:/,
    laterStep: /^delete-record:/,
  },
  {
    // The SSH session dropped: the terminal's hang-up is the first stage of SIGTERM, and a second
    // one (the shell passing it on) does not escalate, since nobody is left to decide to leave now.
    name: 'a slow iscsiadm --logout, SIGHUP twice (the terminal hung up)',
    tool: 'iscsiadm',
    match: '--logout',
    signal: 'SIGHUP',
    twice: true,
    exit: 129,
    notRun: /-o delete/,
    doneStep: /^logout:/,
    laterStep: /^delete-record:/,
  },
];

function fakeTool(bin: string, name: string, log: string, fifo: string, c: Case, root: string): void {
  const block =
    c.tool === name
      ? `case " $* " in *" ${c.match}"*) ${c.deaf ? "trap '' TERM INT HUP;" : ''} echo "$$" > "${fifo}.pid"; read _ < "${fifo}" ;; esac\n`
      : '';
  // A logout that exits 0 has logged the session out, as the real tool's has: the executor checks
  // that it took effect (the session is gone from sysfs) before it calls the step done.
  const effect =
    name === 'iscsiadm'
      ? `case " $* " in *" --logout "*) rm -f "${root}/sys/class/iscsi_session/session1" ;; esac\n`
      : '';
  fs.writeFileSync(
    join(bin, name),
    `#!/bin/sh\necho "start $$ ${name} $*" >> "${log}"\n${block}${effect}echo "end $$ ${name} $*" >> "${log}"\nexit 0\n`,
    { mode: 0o755 },
  );
}

/** The process group of a pid (/proc/<pid>/stat field 5). */
function pgrp(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/** A CLI `logout 1` on a fresh fixture, in a process group of its own, stopped in the case's command. */
async function startLogout(c: Case) {
  const f = new FixtureRoot('single-sysfs.json');
  const work = fs.mkdtempSync(join(dir, 'case-'));
  const bin = join(work, 'bin');
  fs.mkdirSync(bin);
  const log = join(work, 'tools.log');
  const fifo = join(work, 'gate');
  fs.writeFileSync(log, '');
  fakeTool(bin, 'iscsiadm', log, fifo, c, f.root);
  fakeTool(bin, 'blockdev', log, fifo, c, f.root);
  await new Promise((r) => spawn('mkfifo', [fifo]).on('close', r));
  const p: ChildProcess = spawn(
    NODE,
    [cli, 'logout', '1', '--root', f.root, '--write', '--exec', 'direct', '--yes', '--state-dir', '/state'],
    {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, like a shell's foreground job: the group is what Ctrl-C signals.
      detached: true,
    },
  );
  const io = { out: '', err: '' };
  p.stderr!.on('data', (d) => {
    io.err += String(d);
  });
  p.stdout!.on('data', (d) => {
    io.out += String(d);
  });
  const exited = new Promise<number | null>((r) => p.on('close', (code) => r(code)));
  const pidFile = `${fifo}.pid`;
  await until(
    'the blocking command to start',
    () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').endsWith('\n'),
  );
  const child = Number(fs.readFileSync(pidFile, 'utf8'));
  // The runner records the child in the lock right after spawn(2); the child may run first.
  const lockFile = join(f.root, lockPath('/state', IQN1));
  await until('the lock to cover the running child', () => {
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    return lock.pid === p.pid && lock.children?.some((x: { pid: number }) => x.pid === child);
  });
  return { f, log, fifo, p, io, exited, child, release: () => fs.writeFileSync(fifo, 'go\n') };
}

describe('an interrupt stops the plan after the running step, never during it', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const { f, log, p, io, exited, child, release } = await startLogout(c);
      expect(pgrp(child), 'the step runs in a process group of its own').not.toBe(pgrp(p.pid!));
      process.kill(-p.pid!, c.signal);
      await until('the first interrupt to be acknowledged', () =>
        /stopping after the current step/.test(io.err),
      );
      if (c.twice && c.signal === 'SIGHUP') {
        process.kill(-p.pid!, c.signal);
        expect(p.exitCode, 'a second hang-up does not leave mid-step').toBeNull();
      } else if (c.twice) {
        process.kill(-p.pid!, c.signal);
        await until('the second interrupt to name the command', () => io.err.includes(`(pid ${child})`));
        expect(io.err).toMatch(
          new RegExp(`still running: .*${c.tool} .*${c.match}.* \\(pid ${child}\\); waiting`),
        );
        expect(p.exitCode, 'the CLI keeps waiting').toBeNull();
      }
      expect(fs.readFileSync(log, 'utf8')).not.toMatch(new RegExp(`end ${child} `));
      release();
      const code = await exited;

      expect(code, io.err).toBe(c.exit ?? 130);
      const lines = fs.readFileSync(log, 'utf8');
      expect(lines, 'the interrupted command ran to its end').toMatch(
        new RegExp(`end ${child} ${c.tool} .*${c.match}`),
      );
      expect(lines, 'later steps did not run').not.toMatch(c.notRun);
      expect(io.out + io.err).toMatch(/interrupted: stopped after step/);
      const journal = readJournal(new FsHost({ root: f.root, runner: { mode: 'direct' } }), '/state');
      expect(journal.map((e) => e.phase)).toEqual(['begin', 'end']);
      const steps = journal[1]!.steps!;
      const done = steps.filter((s) => s.status === 'done').map((s) => s.id);
      expect(
        done.some((id) => c.doneStep.test(id)),
        JSON.stringify(steps),
      ).toBe(true);
      expect(steps.some((s) => c.laterStep.test(s.id) && s.status === 'done')).toBe(false);
      expect(journal[1]!.ok).toBe(false);
      expect(fs.readdirSync(join(f.root, 'state/locks')), 'the lock is released').toEqual([]);
    }, 60_000);
  }

  it('a third SIGINT quits at once: the command keeps running, and its lock holds until it ends', async () => {
    const { f, log, p, io, exited, child, release } = await startLogout(CASES[0]!);
    process.kill(-p.pid!, 'SIGINT');
    await until('first', () => /stopping after the current step/.test(io.err));
    process.kill(-p.pid!, 'SIGINT');
    await until('second', () => io.err.includes(`(pid ${child})`));
    process.kill(-p.pid!, 'SIGINT');
    expect(await exited).toBe(130);
    expect(io.err).toMatch(
      new RegExp(`quitting now; left running: .*\\(pid ${child}\\): its target stays locked`),
    );

    // The console is gone, its command is not: another process must not take the target.
    const host = new FsHost({ root: f.root, runner: { mode: 'direct' } });
    const clock = fakeTime(0);
    await expect(
      acquireLocks(host, '/state', [IQN1], 'cleanup', { timeoutMs: 1_000, ...clock }),
    ).rejects.toThrow(new RegExp(`children ${child}`));
    release();
    await until('the orphaned command to end', () => fs.readFileSync(log, 'utf8').includes(`end ${child} `));
    // Gone, or a zombie nobody has reaped yet (a container's PID 1 may never): both count as ended.
    await until('the command to exit', () => {
      try {
        return fs.readFileSync(`/proc/${child}/stat`, 'utf8').includes(') Z');
      } catch {
        return true;
      }
    });
    const held = await acquireLocks(host, '/state', [IQN1], 'cleanup', { timeoutMs: 0, ...clock });
    expect(held.notes[0]).toMatch(/the holder and its children are gone/);
    held.release();
  }, 60_000);
});
