import { afterEach, describe, expect, test } from 'vitest';
import { capture, iscsiadm, labSim, nodeUpdate, T1, type TestSim } from './helpers.js';

let t: TestSim;
afterEach(() => t?.close());

async function loggedIn() {
  t = labSim();
  await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
  await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login');
}

describe('faults', () => {
  test('iscsid down: discovery exits 20 with the captured text; login 20; doctor sees no process', async () => {
    t = labSim();
    t.sim.stopDaemon('iscsid');
    const c = capture('err-discovery-without-iscsid.txt');
    const r = await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    expect(r).toEqual({ stdout: '', stderr: c.stderr, exit: 20 });
    expect(t.host.stat('/proc/417')).toBeUndefined();
    expect(t.host.stat('/run/iscsid.pid')).toBeUndefined();
    await iscsiadm(t.host, '-m', 'node', '-o', 'new', '-T', T1, '-p', '127.0.0.1:3260');
    const login = await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login');
    expect(login.exit).toBe(20);
    t.sim.startDaemon('iscsid');
    expect(t.host.readText('/proc/417/comm')).toBe('iscsid\n');
    expect(t.host.readText('/run/iscsid.pid')).toBe('417\n');
  });

  test('node DB locked: writes exit 6, reads work', async () => {
    await loggedIn();
    t.sim.faults.dbLocked = true;
    expect((await nodeUpdate(t.host, T1, '127.0.0.1:3260', 'node.startup', 'manual')).exit).toBe(6);
    expect((await iscsiadm(t.host, '-m', 'session')).exit).toBe(0);
    expect((await iscsiadm(t.host, '-m', 'node')).exit).toBe(0);
  });

  test('scripted login failures: auth 24 and unreachable 8', async () => {
    t = labSim();
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    t.sim.faults.loginFailures.set(T1, 24);
    const r = await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login');
    expect(r.exit).toBe(24);
    expect(r.stderr).toContain('(24 - iSCSI login failed due to authorization failure)');
    t.sim.faults.loginFailures.set('127.0.0.1:3260', 8);
    t.sim.faults.loginFailures.delete(T1);
    expect((await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login')).exit).toBe(8);
    expect(t.sim.kernel.sessions.size).toBe(0);
  });

  test('a hanging command is ended by its timeout; a slow one answers late; abort cancels', async () => {
    await loggedIn();
    t.sim.faults.hang('iscsiadm -m session');
    const hung = t.host.run(['iscsiadm', '-m', 'session'], { timeoutMs: 10_000 });
    t.sim.advance(10_000);
    expect(await hung).toMatchObject({ timedOut: true, exitCode: null, durationMs: 10_000 });
    t.sim.faults.clearCommands();
    t.sim.faults.slow('blkid', 2_000);
    const slow = t.host.run(['blkid', '/dev/sda']);
    t.sim.advance(2_000);
    expect(await slow).toMatchObject({ timedOut: false, exitCode: 2, durationMs: 2_000 });
    t.sim.faults.hang('multipath');
    const ac = new AbortController();
    const cancelled = t.host.run(['multipath', '-ll'], { signal: ac.signal });
    ac.abort();
    expect(await cancelled).toMatchObject({ timedOut: false, exitCode: null });
  });

  test('a session vanishes mid-read: the read answers ENOENT and the session is gone', async () => {
    await loggedIn();
    t.sim.vanishOnRead(1);
    expect(t.host.readTextOrError('/sys/class/iscsi_session/session1/state')).toEqual({ error: 'ENOENT' });
    expect(t.host.readDir('/sys/class/iscsi_session')).toEqual([]);
  });

  test('iscsid and iscsiadm versions can differ', async () => {
    t = labSim();
    t.sim.faults.iscsidVersion = '2.1.4';
    expect((await t.host.run(['iscsid', '--version'])).stdout).toBe('iscsid version 2.1.4\n');
    expect((await t.host.run(['iscsiadm', '--version'])).stdout).toBe('iscsiadm version 2.1.8\n');
  });

  test('CHAP secrets passed as secrets are masked in argv and output', async () => {
    t = labSim();
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    const r = await t.host.run(
      [
        'iscsiadm',
        '-m',
        'node',
        '-T',
        T1,
        '-p',
        '127.0.0.1:3260',
        '-o',
        'update',
        '-n',
        'node.session.auth.password',
        '-v',
        's3cr3t!',
      ],
      { secrets: ['s3cr3t!'] },
    );
    expect(r.argv.join(' ')).not.toContain('s3cr3t!');
    const show = await t.host.run(['iscsiadm', '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '-S'], {
      secrets: ['s3cr3t!'],
    });
    expect(show.stdout).toContain('node.session.auth.password = ********');
  });
});

describe('tools', () => {
  test('unknown programs fail to spawn (ENOENT); nsenter and chroot wrappers run the inner command', async () => {
    t = labSim();
    expect(await t.host.run(['lsblk'])).toMatchObject({ exitCode: null, spawnError: 'ENOENT' });
    const ns = await t.host.run([
      'nsenter',
      '--target',
      '1',
      '--mount',
      '--uts',
      '--ipc',
      '--net',
      '--pid',
      '--',
      'iscsiadm',
      '--version',
    ]);
    expect(ns.stdout).toBe('iscsiadm version 2.1.8\n');
    expect((await t.host.run(['chroot', '/host', 'iscsiadm', '--version'])).stdout).toBe(
      'iscsiadm version 2.1.8\n',
    );
  });

  test('blkid exit 2 on an empty disk; mkfs; TYPE export; mkfs refuses a mounted disk', async () => {
    await loggedIn();
    const probe = ['blkid', '-p', '-s', 'TYPE', '-s', 'PTTYPE', '-o', 'export', '/dev/sda'];
    expect(await t.host.run(probe)).toMatchObject({ exitCode: 2, stdout: '' });
    expect((await t.host.run(['mkfs.ext4', '-F', '-q', '-L', 'lablun1', '/dev/sda'])).exitCode).toBe(0);
    expect((await t.host.run(probe)).stdout).toBe('DEVNAME=/dev/sda\nTYPE=ext4\n');
    expect((await t.host.run(['blkid', '/dev/sda'])).stdout).toMatch(
      /^\/dev\/sda: LABEL="lablun1" UUID="[0-9a-f-]{36}" BLOCK_SIZE="4096" TYPE="ext4"\n$/,
    );
    t.host.mkdir('/mnt/lun1');
    expect((await t.host.run(['mount', '/dev/sda', '/mnt/lun1'])).exitCode).toBe(0);
    expect((await t.host.run(['mkfs.ext4', '-F', '/dev/sda'])).exitCode).toBe(1);
    expect(t.host.readText('/proc/1/mountinfo')).toMatch(
      /^\d+ 21 8:0 \/ \/mnt\/lun1 rw,relatime shared:\d+ - ext4 \/dev\/sda rw,stripe=4$/m,
    );
    expect(await t.host.run(['umount', '/mnt/lun1'])).toMatchObject({ exitCode: 0 });
    expect(await t.host.run(['umount', '/mnt/lun1'])).toMatchObject({
      exitCode: 32,
      stderr: 'umount: /mnt/lun1: not mounted.\n',
    });
  });

  test('files written into a mount live on the filesystem and come back with it', async () => {
    await loggedIn();
    await t.host.run(['mkfs.ext4', '-F', '-q', '/dev/sdb']);
    t.host.mkdir('/mnt/x y');
    t.host.writeText('/mnt/x y/under', 'hidden');
    await t.host.run(['mount', '/dev/sdb', '/mnt/x y']);
    expect(t.host.readText('/proc/1/mountinfo')).toContain(' /mnt/x\\040y ');
    expect(t.host.readText('/mnt/x y/under')).toBeUndefined();
    t.host.writeText('/mnt/x y/hello.txt', 'hello\n');
    await t.host.run(['umount', '/mnt/x y']);
    expect(t.host.readText('/mnt/x y/under')).toBe('hidden');
    expect(t.host.readText('/mnt/x y/hello.txt')).toBeUndefined();
    await t.host.run(['mount', '/dev/sdb', '/mnt/x y']);
    expect(t.host.readText('/mnt/x y/hello.txt')).toBe('hello\n');
  });

  test('mount errors: no filesystem 32, missing device 32, blocked device', async () => {
    await loggedIn();
    t.host.mkdir('/mnt/a');
    expect((await t.host.run(['mount', '/dev/sda', '/mnt/a'])).stderr).toContain('wrong fs type');
    expect((await t.host.run(['mount', '/dev/sdz', '/mnt/a'])).exitCode).toBe(32);
  });

  test('losetup -f --show / -j / -a / -d and /sys/block/loopN/loop/backing_file', async () => {
    await loggedIn();
    t.host.writeText('/var/lib/kubelet/dev-node', '');
    await t.host.run(['mount', '--bind', '/dev/sda', '/var/lib/kubelet/dev-node']);
    expect((await t.host.run(['losetup', '-f', '--show', '/var/lib/kubelet/dev-node'])).stdout).toBe(
      '/dev/loop0\n',
    );
    expect(t.host.readText('/sys/block/loop0/size')).toBe('131072\n');
    expect((await t.host.run(['losetup', '-j', '/var/lib/kubelet/dev-node'])).stdout).toMatch(
      /^\/dev\/loop0: /,
    );
    expect((await t.host.run(['losetup', '-a'])).stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect((await t.host.run(['losetup', '-d', '/dev/loop0'])).exitCode).toBe(0);
    expect((await t.host.run(['losetup', '-d', '/dev/loop0'])).exitCode).toBe(1);
  });

  test('blockdev, fsck, udevadm settle, multipathd status', async () => {
    await loggedIn();
    expect(await t.host.run(['blockdev', '--flushbufs', '/dev/sda'])).toMatchObject({ exitCode: 0 });
    expect((await t.host.run(['blockdev', '--getsize64', '/dev/sdb'])).stdout).toBe(`${32 * 1024 * 1024}\n`);
    await t.host.run(['mkfs.xfs', '-f', '/dev/sdb']);
    expect((await t.host.run(['fsck', '-a', '/dev/sdb'])).exitCode).toBe(0);
    expect((await t.host.run(['udevadm', 'settle'])).exitCode).toBe(0);
    expect((await t.host.run(['multipathd', 'show', 'status'])).stdout).toContain('busy: False');
  });

  test('proc and module files the doctor checks', async () => {
    t = labSim();
    for (const [pid, comm] of [
      ['417', 'iscsid'],
      ['301', 'multipathd'],
      ['212', 'systemd-udevd'],
      ['900', 'kubelet'],
    ]) {
      expect(t.host.readText(`/proc/${pid}/comm`)).toBe(`${comm}\n`);
    }
    expect(t.host.readLink('/proc/1/ns/net')).toBe('net:[4026531840]');
    expect(t.host.readLink('/proc/self/ns/net')).toBe('net:[4026531840]');
    for (const m of ['iscsi_tcp', 'scsi_transport_iscsi', 'libiscsi', 'dm_multipath'])
      expect(t.host.stat(`/sys/module/${m}`)).toBe('dir');
    expect(t.host.readText('/etc/iscsi/initiatorname.iscsi')).toContain(
      'InitiatorName=iqn.1993-08.org.debian:01:labguest0001\n',
    );
    expect(t.host.readText('/proc/swaps')).toMatch(/^Filename\t+Type/);
  });
});

describe('partitions and swap', () => {
  test('a partitioned disk: sdX1 in sysfs and /dev, PTTYPE from blkid; swap only in /proc/swaps', async () => {
    await loggedIn();
    t.sim.partition('sda', 2);
    expect(t.host.readText('/sys/block/sda/sda1/partition')).toBe('1\n');
    expect(t.host.readText('/sys/block/sda/sda2/dev')).toBe('8:2\n');
    expect(t.host.stat('/dev/sda2')).toBe('file');
    const probe = await t.host.run(['blkid', '-p', '-s', 'TYPE', '-s', 'PTTYPE', '-o', 'export', '/dev/sda']);
    expect(probe.stdout).toBe('DEVNAME=/dev/sda\nPTTYPE=gpt\n');
    t.sim.swapOn('/dev/sda2');
    expect(t.host.readText('/proc/swaps')).toMatch(/^\/dev\/sda2 +partition\t\d+\t\t0\t\t-2$/m);
    expect(t.host.readText('/proc/1/mountinfo')).not.toContain('sda2');
  });
});
