/**
 * Locks judged by type, content and age, on a plain tree through FsHost (the file code a node uses):
 * whatever stands at a lock's path — a future mtime, a directory, a FIFO, a dangling link, a 5 MB
 * file, JSON that is not a holder — is taken over once old (or dated in the future), with a journal
 * note naming what it was; never opened blocking, never an internal error. No test waits real time.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLocks, lockPath } from '../../src/engine/actions/lock.js';
import { RefusedError } from '../../src/engine/errors.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { fakeTime } from '../helpers/fake-time.js';

const IQN = 'iqn.2024-01.lab.example:storage.target1';
const trees: string[] = [];
afterAll(() => {
  for (const t of trees) fs.rmSync(t, { recursive: true, force: true });
});

function lockAt(): { host: FsHost; file: string; dir: string } {
  const root = fs.mkdtempSync(join(tmpdir(), 'lock-judge-'));
  trees.push(root);
  const dir = join(root, 'state/locks');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    host: new FsHost({ root, runner: { mode: 'direct' } }),
    file: join(root, lockPath('/state', IQN)),
    dir,
  };
}

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);
}

const HOUR = 3_600_000;

describe('a lock that is not a lock this console wrote', () => {
  it.each([
    ['a directory', (f: string) => fs.mkdirSync(f), /it was a directory and it was 3600 s old/],
    [
      'a FIFO',
      (f: string) => spawnSync('mkfifo', [f]),
      /it was a FIFO, socket or device and it was 3600 s old/,
    ],
    [
      'a dangling symlink',
      (f: string) => fs.symlinkSync('/nonexistent/owner', f),
      /it was a symlink and it was 3600 s old/,
    ],
    [
      'a 5 MB file',
      (f: string) => fs.writeFileSync(f, Buffer.alloc(5 * 1024 * 1024, 0x7b)),
      /it was 5242880 bytes, larger than any lock and it was 3600 s old/,
    ],
    [
      '{"children":5}',
      (f: string) => fs.writeFileSync(f, '{"children":5}'),
      /its content was unreadable and it was 3600 s old/,
    ],
    [
      'a holder with children 5',
      (f: string) =>
        fs.writeFileSync(
          f,
          JSON.stringify({ pid: deadPid(), hostname: 'h', action: 'a', since: 's', children: 5 }),
        ),
      /its content was unreadable and it was 3600 s old/,
    ],
  ])('%s an hour old is taken over with a note', async (_what, make, note) => {
    const { host, file, dir } = lockAt();
    make(file);
    const mtime = fs.lstatSync(file).mtimeMs;
    const held = await acquireLocks(host, '/state', [IQN], 'cleanup', {
      timeoutMs: 0,
      ...fakeTime(mtime + HOUR),
    });
    expect(held.notes).toHaveLength(1);
    expect(held.notes[0]).toMatch(note);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
    held.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a lock whose mtime is in the future counts as old: taken over, not waited on forever', async () => {
    const { host, file } = lockAt();
    fs.writeFileSync(file, 'garbage');
    const future = (Date.now() + 10 * HOUR) / 1000;
    fs.utimesSync(file, future, future);
    const held = await acquireLocks(host, '/state', [IQN], 'cleanup', { timeoutMs: 0, ...fakeTime() });
    expect(held.notes[0]).toMatch(/its content was unreadable and its mtime was in the future/);
    held.release();
  });

  it('a young invalid lock is waited on, and the refusal says when it will be taken over', async () => {
    const { host, file } = lockAt();
    fs.mkdirSync(file);
    const mtime = fs.lstatSync(file).mtimeMs;
    const err = await acquireLocks(host, '/state', [IQN], 'cleanup', {
      timeoutMs: 1_000,
      unreadableAfterMs: 60_000,
      ...fakeTime(mtime + 100),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as RefusedError).message).toMatch(/its lock cannot be read yet: it was a directory/);
    expect((err as RefusedError).hint).toMatch(/taken over once it is 60 s old/);
    expect(fs.statSync(file).isDirectory()).toBe(true);
  });

  it('a directory with entries cannot be removed without recursion: refused, naming the path to clear', async () => {
    const { host, file } = lockAt();
    fs.mkdirSync(file);
    fs.writeFileSync(join(file, 'keep'), 'x');
    const mtime = fs.lstatSync(file).mtimeMs;
    const err = await acquireLocks(host, '/state', [IQN], 'cleanup', {
      timeoutMs: 0,
      ...fakeTime(mtime + HOUR),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as RefusedError).message).toMatch(
      /cannot be taken over: it was a directory and it cannot be removed \(ENOTEMPTY\)/,
    );
    expect((err as RefusedError).hint).toContain(`${lockPath('/state', IQN)} by hand`);
    expect(fs.readFileSync(join(file, 'keep'), 'utf8')).toBe('x');
  });

  it('a live holder is refused after the wait with a hint that is true: the lock frees when the holder is gone', async () => {
    const { host, file } = lockAt();
    fs.writeFileSync(
      file,
      JSON.stringify({ pid: process.ppid, hostname: 'h', action: 'logout', since: 'then' }),
    );
    const err = await acquireLocks(host, '/state', [IQN], 'cleanup', {
      timeoutMs: 1_000,
      ...fakeTime(),
    }).catch((e: unknown) => e);
    expect((err as RefusedError).message).toMatch(
      new RegExp(`locked by pid ${process.ppid} \\(logout, since then\\)`),
    );
    expect((err as RefusedError).hint).toMatch(
      new RegExp(`taken over automatically once pid ${process.ppid} and its children are gone`),
    );
  });
});
