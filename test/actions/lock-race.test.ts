/**
 * Two real processes racing on one target are serialised by the cross-process lock; a dead
 * holder's lock is taken over; a live holder's lock makes the other wait, then refuse.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { acquireLocks, lockPath } from '../../src/engine/actions/lock.js';
import { RefusedError } from '../../src/engine/errors.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { buildCliBundle, until } from '../helpers/cli-bundle.js';
import { fakeTime } from '../helpers/fake-time.js';

const IQN = 'iqn.2024-01.lab.example:storage.target1';
const NODE = resolve('node_modules/.bin/node');
let dir: string;
let cli: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(join(tmpdir(), 'lock-race-'));
  cli = await buildCliBundle(dir);
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cross-process target lock', () => {
  it('two CLI processes on one target do not overlap', async () => {
    const root = join(dir, 'root');
    const rec = join(root, 'etc/iscsi/nodes', IQN, '10.0.0.1,3260,1');
    fs.mkdirSync(rec, { recursive: true });
    fs.writeFileSync(join(rec, 'default'), `node.name = ${IQN}\nnode.startup = automatic\n`);
    fs.mkdirSync(join(root, 'sys/class'), { recursive: true });
    fs.mkdirSync(join(root, 'proc/1'), { recursive: true });
    const bin = join(dir, 'bin');
    fs.mkdirSync(bin);
    const log = join(dir, 'iscsiadm.log');
    const gate = join(dir, 'gate');
    spawnSync('mkfifo', [gate]);
    // A fake iscsiadm that does what `-o update -n node.startup -v manual` does. The first one to
    // run waits at a FIFO until the test lets it go (no sleep): its CLI holds the lock meanwhile.
    fs.writeFileSync(
      join(bin, 'iscsiadm'),
      `#!/bin/sh\necho "start $$" >> "${log}"\nif mkdir "${dir}/claim" 2>/dev/null; then read _ < "${gate}"; fi\nprintf 'node.name = ${IQN}\\nnode.startup = manual\\n' > "${join(rec, 'default')}"\necho "end $$" >> "${log}"\n`,
      { mode: 0o755 },
    );
    fs.writeFileSync(log, '');
    // Every lock attempt writes `<lock>.<pid>.<n>.tmp` first: seeing the other CLI's proves it tried.
    fs.mkdirSync(join(root, 'state/locks'), { recursive: true, mode: 0o700 });
    const attempts: string[] = [];
    const watcher = fs.watch(join(root, 'state/locks'), (_e, name) => {
      if (name) attempts.push(String(name));
    });
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    const args = [
      cli,
      'forget',
      IQN,
      '--manual',
      '--root',
      root,
      '--write',
      '--yes',
      // The fake iscsiadm on PATH is this machine's: say so (--write under --root needs --exec).
      '--exec',
      'direct',
      '--state-dir',
      '/state',
    ];
    const runOne = () => {
      const p = spawn(NODE, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d) => {
        err += String(d);
      });
      return {
        pid: p.pid!,
        done: new Promise<{ code: number | null; err: string }>((res) =>
          p.on('close', (code) => res({ code, err })),
        ),
      };
    };
    const a = runOne();
    const b = runOne();
    await until('one iscsiadm to start', () => fs.readFileSync(log, 'utf8').includes('start'));
    const holder = JSON.parse(fs.readFileSync(join(root, lockPath('/state', IQN)), 'utf8')).pid as number;
    const other = holder === a.pid ? b.pid : a.pid;
    await until('the other CLI to try the held lock', () => attempts.some((n) => n.includes(`.${other}.`)));
    expect(fs.readFileSync(log, 'utf8').trim().split('\n'), 'the other waits').toHaveLength(1);
    fs.writeFileSync(gate, 'go\n');
    const results = await Promise.all([a.done, b.done]);
    watcher.close();
    for (const r of results) expect(r.code, r.err).toBe(0);
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    // Serialised: start A, end A, start B, end B — never start, start.
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['start', 'end', 'start', 'end']);
    expect(lines[0]!.split(' ')[1]).toBe(lines[1]!.split(' ')[1]);
    const journal = readJournal(new FsHost({ root, runner: { mode: 'direct' } }), '/state');
    expect(journal.map((e) => e.phase)).toEqual(['begin', 'end', 'begin', 'end']);
    expect(fs.readdirSync(join(root, 'state/locks'))).toEqual([]);
  }, 60_000);

  it('a lock left by a dead process is taken over; a live holder makes others wait, then refuse', async () => {
    const root = join(dir, 'root2');
    fs.mkdirSync(root);
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    const dead = spawnSync(NODE, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    host.mkdir('/state/locks');
    host.writeText(
      lockPath('/state', IQN),
      JSON.stringify({ pid: deadPid, hostname: 'x', action: 'logout', since: 'then' }),
    );
    const held = await acquireLocks(host, '/state', [IQN], 'cleanup', { timeoutMs: 1_000 });
    expect(JSON.parse(host.readText(lockPath('/state', IQN))!).pid).toBe(process.pid);
    held.release();
    expect(host.lstat(lockPath('/state', IQN))).toBeUndefined();

    // A live holder in another process (our parent shell stands in: alive, not us).
    host.writeText(
      lockPath('/state', IQN),
      JSON.stringify({ pid: process.ppid, hostname: 'x', action: 'logout', since: 'now' }),
    );
    // The wait runs on an injected clock: it waits (backs off) until the timeout, then refuses.
    const clock = fakeTime(0);
    await expect(
      acquireLocks(host, '/state', [IQN], 'cleanup', { timeoutMs: 300, ...clock }),
    ).rejects.toBeInstanceOf(RefusedError);
    expect(clock.c.sleeps.slice(0, 3)).toEqual([25, 50, 100]);
    expect(clock.c.t).toBeGreaterThanOrEqual(300);
    expect(JSON.parse(host.readText(lockPath('/state', IQN))!).pid).toBe(process.ppid);
  });

  it('in one process, two applies on one target run one after the other', async () => {
    const root = join(dir, 'root3');
    fs.mkdirSync(root);
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    const order: string[] = [];
    const work = async (name: string) => {
      const held = await acquireLocks(host, '/state', [IQN], name);
      order.push(`${name}:start`);
      await new Promise((r) => setImmediate(r));
      order.push(`${name}:end`);
      held.release();
    };
    await Promise.all([work('a'), work('b')]);
    expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end']);
  });
});
