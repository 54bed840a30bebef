/**
 * The state dir under stress, through applyPlan on the simulator (the same FsHost file code a
 * node uses) and through the lock code on a plain tree: locks that cannot wedge, a journal that
 * cannot merge a torn line, a state dir that refuses symlinks, foreign owners and loose modes, and
 * a read-only or full filesystem named as such (exit 2) with nothing left behind.
 * No test waits real time: apply and the locks take an injected clock and sleep.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { acquireLocks, lockPath } from '../../src/engine/actions/lock.js';
import { RefusedError } from '../../src/engine/errors.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, STATE_DIR, simEnv } from './helpers.js';

const IQN = 'iqn.2024-01.lab.example:storage.target1';
const isRoot = process.getuid?.() === 0;

const trees: string[] = [];
function tree(): { root: string; host: FsHost } {
  const root = fs.mkdtempSync(join(tmpdir(), 'state-dir-'));
  trees.push(root);
  return { root, host: new FsHost({ root, runner: { mode: 'direct' } }) };
}
afterAll(() => {
  for (const t of trees) fs.rmSync(t, { recursive: true, force: true });
});

/** A pid that is surely not running: a process that has already exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);
}

describe('locks', () => {
  it.each([
    ['empty', ''],
    ['corrupt', '{"pid": 12'],
  ])(
    'an %s lock is judged by its age: waited on while young, taken over once old',
    async (_kind, content) => {
      const { root, host } = tree();
      const file = join(root, lockPath('/state', IQN));
      fs.mkdirSync(join(root, 'state/locks'), { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, content);
      const mtime = fs.statSync(file).mtimeMs;

      const young = fakeTime(mtime + 1_000);
      await expect(
        acquireLocks(host, '/state', [IQN], 'cleanup', {
          timeoutMs: 5_000,
          unreadableAfterMs: 60_000,
          ...young,
        }),
      ).rejects.toThrow(/locked by another process \(its lock cannot be read yet: its content was/);
      expect(fs.readFileSync(file, 'utf8')).toBe(content);

      const old = fakeTime(mtime + 61_000);
      const held = await acquireLocks(host, '/state', [IQN], 'cleanup', {
        unreadableAfterMs: 60_000,
        ...old,
      });
      expect(held.notes[0]).toMatch(
        new RegExp(
          `took over the lock of target ${IQN}: its content was ${_kind === 'empty' ? 'empty' : 'unreadable'} and it was 61 s old`,
        ),
      );
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
      held.release();
      expect(fs.readdirSync(join(root, 'state/locks'))).toEqual([]);
    },
  );

  it('a lock whose holder is dead but whose child still runs is not taken over; once both are gone it is', async () => {
    const { root, host } = tree();
    const file = join(root, lockPath('/state', IQN));
    fs.mkdirSync(join(root, 'state/locks'), { recursive: true, mode: 0o700 });
    const holder = { pid: deadPid(), hostname: 'x', action: 'logout', since: 'then' };
    // Our parent stands in for a step's child still running after its console was killed.
    fs.writeFileSync(file, JSON.stringify({ ...holder, children: [{ pid: process.ppid }] }));
    await expect(
      acquireLocks(host, '/state', [IQN], 'cleanup', { timeoutMs: 2_000, ...fakeTime() }),
    ).rejects.toBeInstanceOf(RefusedError);
    await expect(
      acquireLocks(host, '/state', [IQN], 'cleanup', { timeoutMs: 2_000, ...fakeTime() }),
    ).rejects.toThrow(
      new RegExp(`locked by pid ${holder.pid} \\(logout, since then, children ${process.ppid}\\)`),
    );

    fs.writeFileSync(file, JSON.stringify({ ...holder, children: [{ pid: deadPid() }] }));
    const time = fakeTime();
    const held = await acquireLocks(host, '/state', [IQN], 'cleanup', { timeoutMs: 0, ...time });
    expect(held.notes[0]).toMatch(/the holder and its children are gone/);
    expect(time.c.slept).toBe(0);
    held.release();
  });

  it('a lock is created whole (never empty), names the children it covers, and leaves no temp file', async () => {
    const { root, host } = tree();
    const held = await acquireLocks(host, '/state', [IQN], 'cleanup');
    const file = join(root, lockPath('/state', IQN));
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, action: 'cleanup' });
    held.child(process.ppid, false);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).children).toEqual([
      expect.objectContaining({ pid: process.ppid }),
    ]);
    held.child(process.ppid, true);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).children).toEqual([]);
    expect(host.createExclusive(lockPath('/state', IQN), 'other')).toBe(false);
    expect(fs.readdirSync(join(root, 'state/locks'))).toEqual([file.split('/').pop()]);
    held.release();
  });
});

describe('apply and the state dir', () => {
  let env: SimEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });
  const stateAt = (e: SimEnv) => join(e.host.root, STATE_DIR);

  it('an unreadable lock left behind is taken over with a journal note', async () => {
    env = await simEnv('incident');
    const plan = env.plan('cleanup', ['4']);
    const file = join(env.host.root, lockPath(STATE_DIR, plan.lockKeys![0]!));
    fs.mkdirSync(join(stateAt(env), 'locks'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, '');
    const old = (Date.now() - 3_600_000) / 1000;
    fs.utimesSync(file, old, old);
    const { result } = await env.run('cleanup', ['4'], {}, { ...fakeTime(), lockTimeoutMs: 0 });
    expect(result.error).toBeUndefined();
    const [begin] = readJournal(env.host, STATE_DIR);
    expect(begin!.notes?.[0]).toMatch(/took over the lock of target .*: its content was empty/);
    expect(result.warnings?.join('\n')).toMatch(/took over the lock/);
  });

  it('a torn last journal line is closed first, reported unparseable, and never merged with the next entry', async () => {
    env = await simEnv('incident');
    fs.mkdirSync(stateAt(env), { recursive: true, mode: 0o700 });
    const journal = join(stateAt(env), 'journal.jsonl');
    fs.writeFileSync(journal, '{"id":"earlier","phase":"begin","at":"2026-', { mode: 0o600 });
    const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
    expect(result.error).toBeUndefined();
    expect(result.warnings?.join('\n')).toMatch(/journal: its last line was torn/);
    const torn: [number, string][] = [];
    const entries = readJournal(env.host, STATE_DIR, (n, text) => torn.push([n, text]));
    expect(torn).toEqual([[1, '{"id":"earlier","phase":"begin","at":"2026-']]);
    expect(entries.map((e) => e.phase)).toEqual(['begin', 'end']);
    expect(fs.readFileSync(journal, 'utf8').split('\n')[0]).toBe(
      '{"id":"earlier","phase":"begin","at":"2026-',
    );
  });

  it.each([
    [
      'a symlinked state dir',
      (dir: string) => {
        const elsewhere = fs.mkdtempSync(join(tmpdir(), 'elsewhere-'));
        trees.push(elsewhere);
        fs.mkdirSync(join(dir, '..'), { recursive: true });
        fs.symlinkSync(elsewhere, dir);
        return elsewhere;
      },
      /state dir .* is a symlink \(to ".*elsewhere-.*"\): refusing to write through it/,
    ],
    [
      'a symlinked journal',
      (dir: string) => {
        const elsewhere = fs.mkdtempSync(join(tmpdir(), 'elsewhere-'));
        trees.push(elsewhere);
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        fs.symlinkSync(join(elsewhere, 'victim'), join(dir, 'journal.jsonl'));
        return elsewhere;
      },
      /journal .*journal.jsonl is a symlink/,
    ],
    [
      'a world-writable state dir',
      (dir: string) => {
        fs.mkdirSync(dir, { recursive: true });
        fs.chmodSync(dir, 0o777);
        return undefined;
      },
      /state dir .* is world-writable \(mode 0777\)/,
    ],
    [
      'a group-writable journal',
      (dir: string) => {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(join(dir, 'journal.jsonl'), '');
        fs.chmodSync(join(dir, 'journal.jsonl'), 0o660);
        return undefined;
      },
      /journal .* is group-writable \(mode 0660\)/,
    ],
  ])('%s is refused, exit 2, nothing run or written', async (_name, make, message) => {
    env = await simEnv('incident');
    const elsewhere = make(stateAt(env));
    const before = env.snap().sessions.length;
    const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
    expect(result.ok).toBe(false);
    expect(result.error?.exitCode).toBe(2);
    expect(result.error?.message).toMatch(message);
    expect(env.snap().sessions.length).toBe(before);
    if (elsewhere) expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it.each([
    [
      'a world-writable parent (0777 /var/log)',
      0o777,
      /its parent \/var\/log is world-writable and not sticky \(mode 0777\)/,
    ],
    [
      'a group-writable parent',
      0o775,
      /its parent \/var\/log is group-writable and not sticky \(mode 0775\)/,
    ],
  ])('%s is refused, exit 2, nothing run or created', async (_name, mode, message) => {
    env = await simEnv('incident');
    const parent = join(stateAt(env), '..');
    fs.mkdirSync(parent, { recursive: true });
    fs.chmodSync(parent, mode);
    const before = env.snap().sessions.length;
    const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
    expect(result.error?.exitCode).toBe(2);
    expect(result.error?.message).toMatch(message);
    expect(env.snap().sessions.length).toBe(before);
    expect(fs.existsSync(stateAt(env))).toBe(false);
  });

  it('a sticky world-writable parent (a /tmp-like 1777 dir) is accepted: only the owner may swap an entry there', async () => {
    env = await simEnv('incident');
    const parent = join(stateAt(env), '..');
    fs.mkdirSync(parent, { recursive: true });
    fs.chmodSync(parent, 0o1777);
    const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
    expect(result.error).toBeUndefined();
    expect(fs.statSync(stateAt(env)).mode & 0o777).toBe(0o700);
  });

  it.skipIf(!isRoot)('a parent owned by another user is refused (needs root to chown)', async () => {
    env = await simEnv('incident');
    const parent = join(stateAt(env), '..');
    fs.mkdirSync(parent, { recursive: true });
    fs.chownSync(parent, 4321, 4321);
    const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
    expect(result.error?.exitCode).toBe(2);
    expect(result.error?.message).toMatch(
      /its parent \/var\/log is owned by uid 4321, not by root or the running user/,
    );
  });

  it.skipIf(!isRoot)(
    'a state dir not owned by the running user is refused (needs root to chown)',
    async () => {
      env = await simEnv('incident');
      fs.mkdirSync(stateAt(env), { recursive: true, mode: 0o700 });
      fs.chownSync(stateAt(env), 4321, 4321);
      const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
      expect(result.error?.exitCode).toBe(2);
      expect(result.error?.message).toMatch(/is owned by uid 4321, not by the running user \(uid 0\)/);
    },
  );
});

/** Mounts a tmpfs (root only); undefined with the reason when this machine cannot. */
function mountTmpfs(at: string, options: string): string | undefined {
  fs.mkdirSync(at, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', at], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `mount -t tmpfs failed: ${r.stderr.trim()}`;
}
const mounted: string[] = [];
afterAll(() => {
  for (const m of mounted.reverse()) spawnSync('umount', ['-l', m]);
});

describe.skipIf(!isRoot)('a state dir on a full or read-only filesystem (needs root: mounts a tmpfs)', () => {
  let env: SimEnv | undefined;
  afterEach(async () => {
    if (env) spawnSync('umount', ['-l', join(env.host.root, STATE_DIR)]);
    await env?.close();
    env = undefined;
  });

  it('a full 8 KiB tmpfs: ENOSPC named, exit 2, nothing left behind; after freeing space the lock is taken at once', async () => {
    env = await simEnv('incident');
    const dir = join(env.host.root, STATE_DIR);
    const failed = mountTmpfs(dir, 'size=8k,mode=0700');
    expect(failed, failed).toBeUndefined();
    mounted.push(dir);
    // Fill it: write until the filesystem says ENOSPC.
    const filler = join(dir, 'filler');
    const fd = fs.openSync(filler, 'w');
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(1024, 1));
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
    const before = env.snap().sessions.length;
    const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
    expect(result.ok).toBe(false);
    expect(result.error?.exitCode).toBe(2);
    expect(result.error?.message).toMatch(
      /state dir \/var\/log\/iscsi-console is full \(ENOSPC\): cannot lock target .*; nothing was left behind/,
    );
    expect(env.snap().sessions.length).toBe(before);
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((p) =>
      fs.statSync(join(dir, p)).isFile(),
    );
    expect(files).toEqual(['filler']);

    fs.rmSync(filler);
    // The next run takes the lock at once (lockTimeoutMs 0: any wait would refuse). An 8 KiB
    // tmpfs then has room for the lock's page but not for a journal line holding the whole plan
    // as well: apply refuses to run a step it cannot journal, names ENOSPC, and leaves nothing.
    const again = await env.run('cleanup', ['4'], {}, { ...fakeTime(), lockTimeoutMs: 0 });
    expect(again.result.error?.kind).not.toBe('refused');
    if (again.result.error) {
      expect(again.result.error.exitCode).toBe(2);
      expect(again.result.error.message).toMatch(/is full \(ENOSPC\): cannot write the journal/);
      expect(env.snap().sessions.length).toBe(before);
    }
    expect(fs.readdirSync(join(dir, 'locks'))).toEqual([]);
    expect(fs.existsSync(join(dir, 'journal.jsonl'))).toBe(false);
  });

  it('a read-only state dir: EROFS named, exit 2', async () => {
    env = await simEnv('incident');
    const dir = join(env.host.root, STATE_DIR);
    const failed = mountTmpfs(dir, 'size=64k,mode=0700');
    expect(failed, failed).toBeUndefined();
    mounted.push(dir);
    expect(spawnSync('mount', ['-o', 'remount,ro', dir]).status).toBe(0);
    const { result } = await env.run('cleanup', ['4'], {}, fakeTime());
    expect(result.error?.exitCode).toBe(2);
    expect(result.error?.message).toMatch(
      /state dir \/var\/log\/iscsi-console is on a read-only filesystem \(EROFS\)/,
    );
    expect(result.error?.hint).toMatch(/remount it read-write/);
  });
});
