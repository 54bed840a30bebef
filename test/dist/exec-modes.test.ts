import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHost } from '../../src/app/open-host.js';
import { readGlobals } from '../../src/cli/globals.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import type { RunResult } from '../../src/engine/host/host.js';
import { createRunner, wrapArgv } from '../../src/engine/host/runner.js';

const NSENTER = ['nsenter', '--target', '1', '--mount', '--uts', '--ipc', '--net', '--pid', '--'];

describe('exec modes wrap the argv', () => {
  it('direct runs the argv as given', () => {
    expect(wrapArgv(['iscsiadm', '-m', 'session'], { mode: 'direct' })).toEqual([
      'iscsiadm',
      '-m',
      'session',
    ]);
  });

  it("nsenter enters PID 1's mount, uts, ipc, net and pid namespaces, then runs the argv after --", () => {
    expect(wrapArgv(['iscsiadm', '-m', 'session', '-P', '3'], { mode: 'nsenter' })).toEqual([
      ...NSENTER,
      'iscsiadm',
      '-m',
      'session',
      '-P',
      '3',
    ]);
  });

  it('chroot runs the argv inside the root dir (default /host)', () => {
    expect(wrapArgv(['iscsiadm', '--version'], { mode: 'chroot', chrootDir: '/srv/node' })).toEqual([
      'chroot',
      '/srv/node',
      'iscsiadm',
      '--version',
    ]);
    expect(wrapArgv(['true'], { mode: 'chroot' })).toEqual(['chroot', '/host', 'true']);
  });

  it('an argument that looks like an option is never taken by nsenter/chroot (argv array, no shell)', () => {
    const argv = ['iscsiadm', '-m', 'node', '-T', 'iqn.2024-01.x:t; rm -rf /', '--target', '2'];
    expect(wrapArgv(argv, { mode: 'nsenter' }).slice(NSENTER.length)).toEqual(argv);
  });

  it('--root /host --exec chroot opens a host that reads under /host and chroots commands into /host', async () => {
    // A node's root as a debug pod sees it: its /sys and /proc (a root without them is exit 2).
    const hostDir = mkdtempSync(join(tmpdir(), 'exec-modes-host-'));
    for (const d of ['sys/class', 'proc/1']) mkdirSync(join(hostDir, d), { recursive: true });
    try {
      const globals = readGlobals({ root: hostDir, exec: 'chroot' }, {});
      const { host } = await openHost(globals);
      expect(host.root).toBe(hostDir);
      expect(host.kind).toBe('root');
      const seen: RunResult[] = [];
      // Same runner config as open-host builds, observed through onRun; the command is harmless.
      const run = createRunner({ mode: globals.exec, chrootDir: globals.root, onRun: (r) => seen.push(r) });
      const r = await run(['true']);
      expect(seen[0]?.argv).toEqual(['chroot', hostDir, 'true']);
      expect(r.argv).toEqual(['chroot', hostDir, 'true']);
    } finally {
      rmSync(hostDir, { recursive: true, force: true });
    }
  });
});

/** A fake host tree with a static busybox, so chroot can run something real and harmless in it. */
const busybox = ['/usr/bin/busybox', '/bin/busybox'].find((p) => existsSync(p));
const isStatic = busybox
  ? /statically linked/.test(spawnSync('file', [busybox]).stdout?.toString() ?? '')
  : false;
const canChroot = process.getuid?.() === 0 && busybox !== undefined && isStatic;

describe.skipIf(!canChroot)(
  'chroot mode on a fake host tree (real runner, needs root and a static busybox)',
  () => {
    let tree: string;
    beforeAll(() => {
      tree = mkdtempSync(join(tmpdir(), 'iscsi-console-chroot-'));
      mkdirSync(join(tree, 'bin'));
      mkdirSync(join(tree, 'etc', 'iscsi'), { recursive: true });
      copyFileSync(busybox!, join(tree, 'bin', 'busybox'));
      chmodSync(join(tree, 'bin', 'busybox'), 0o755);
      writeFileSync(
        join(tree, 'etc', 'iscsi', 'initiatorname.iscsi'),
        'InitiatorName=iqn.2026-11.org.example:in-the-tree\n',
      );
      // The tree's own iscsiadm: proves the command ran inside the tree, not on this machine.
      writeFileSync(join(tree, 'bin', 'iscsiadm'), '#!/bin/busybox sh\necho "iscsiadm version 9.9.9-tree"\n');
      chmodSync(join(tree, 'bin', 'iscsiadm'), 0o755);
    });
    afterAll(() => rmSync(tree, { recursive: true, force: true }));

    it('reads files under the root and runs commands via chroot into the same tree', async () => {
      const host = new FsHost({ root: tree, runner: { mode: 'chroot', chrootDir: tree } });
      expect(host.readText('/etc/iscsi/initiatorname.iscsi')).toBe(
        'InitiatorName=iqn.2026-11.org.example:in-the-tree\n',
      );
      const cat = await host.run(['/bin/busybox', 'cat', '/etc/iscsi/initiatorname.iscsi']);
      expect(cat.argv).toEqual(['chroot', tree, '/bin/busybox', 'cat', '/etc/iscsi/initiatorname.iscsi']);
      expect(cat).toMatchObject({
        exitCode: 0,
        stdout: 'InitiatorName=iqn.2026-11.org.example:in-the-tree\n',
      });
      const v = await host.run(['/bin/iscsiadm', '--version']);
      expect(v).toMatchObject({ exitCode: 0, stdout: 'iscsiadm version 9.9.9-tree\n' });
    });

    it('a command missing in the tree fails inside the chroot (exit 127), not on this machine', async () => {
      const host = new FsHost({ root: tree, runner: { mode: 'chroot', chrootDir: tree } });
      const r = await host.run(['/usr/bin/env', 'true']);
      expect(r.exitCode).toBe(127);
      expect(r.stderr).toContain('chroot');
    });
  },
);

const canUnshare =
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0 &&
  spawnSync('unshare', ['--pid', '--fork', '--mount-proc', ...NSENTER, 'true']).status === 0;

describe('nsenter mode (real runner)', () => {
  it('runs the wrapped argv through nsenter; where PID 1 is off limits, nsenter itself says so', async () => {
    const seen: RunResult[] = [];
    const run = createRunner({ mode: 'nsenter', onRun: (r) => seen.push(r) });
    const r = await run(['cat', '/proc/1/comm']);
    expect(seen[0]?.argv).toEqual([...NSENTER, 'cat', '/proc/1/comm']);
    if (r.exitCode === 0) expect(r.stdout.trim().length).toBeGreaterThan(0);
    else expect(r.stderr).toMatch(/^nsenter: /m);
  });

  it.skipIf(!canUnshare)(
    'inside a new PID namespace, nsenter --target 1 reaches that namespace’s PID 1',
    () => {
      // The console as a debug pod sees it: PID 1 is "the host". Here PID 1 is the shell unshare started.
      const r = spawnSync(
        'unshare',
        ['--pid', '--fork', '--mount-proc', 'sh', '-c', `${NSENTER.join(' ')} cat /proc/1/comm`],
        {
          encoding: 'utf8',
        },
      );
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe('sh');
    },
  );
});
