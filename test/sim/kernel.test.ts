import { afterEach, describe, expect, test } from 'vitest';
import { HostIoError } from '../../src/engine/host/host.js';
import { byPathName, sdName } from '../../src/sim/kernel/names.js';
import { iscsiadm, labSim, labTargets, nodeUpdate, T1, T2, type TestSim } from './helpers.js';

let t: TestSim;
afterEach(() => t?.close());

async function discover() {
  await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
}
const login = (iqn: string) => iscsiadm(t.host, '-m', 'node', '-T', iqn, '-p', '127.0.0.1:3260', '--login');
const logout = (iqn: string) => iscsiadm(t.host, '-m', 'node', '-T', iqn, '-p', '127.0.0.1:3260', '--logout');
const hostOf = (sid: number) =>
  t.host.readLink(`/sys/class/iscsi_session/session${sid}`)!.match(/host(\d+)/)![1];

describe('kernel numbering', () => {
  test('sids only grow; SCSI host numbers are reused (lowest free) after logout', async () => {
    t = labSim();
    await discover();
    await login(T1);
    await login(T2);
    expect(t.host.readDir('/sys/class/iscsi_session').sort()).toEqual(['session1', 'session2']);
    expect([hostOf(1), hostOf(2)]).toEqual(['0', '1']);
    await logout(T1);
    await login(T1);
    expect(t.host.readDir('/sys/class/iscsi_session').sort()).toEqual(['session2', 'session3']);
    expect(hostOf(3)).toBe('0');
    expect(t.host.readDir('/sys/class/scsi_host').sort()).toEqual(['host0', 'host1']);
  });

  test('sd names follow the kernel (sda..sdz, sdaa) and are reused', () => {
    expect([0, 25, 26, 27, 701, 702].map(sdName)).toEqual(['sda', 'sdz', 'sdaa', 'sdab', 'sdzz', 'sdaaa']);
  });

  test('udev by-path names: IPv6 unbracketed, lun-0x... from LUN 256', () => {
    expect(byPathName({ address: 'fd00::1', port: 3260 }, 'iqn.x:y', 1)).toBe(
      'ip-fd00::1:3260-iscsi-iqn.x:y-lun-1',
    );
    expect(byPathName({ address: '10.0.0.1', port: 3260 }, 'iqn.x:y', 256)).toBe(
      'ip-10.0.0.1:3260-iscsi-iqn.x:y-lun-0x0100000000000000',
    );
  });
});

describe('scans', () => {
  test('auto scan at login finds LUN 0 (controller, no block device) and every disk', async () => {
    t = labSim();
    await discover();
    await login(T1);
    const base = '/sys/class/iscsi_session/session1/device/target0:0:0';
    expect(
      t.host
        .readDir(base)
        .filter((e) => e.includes(':'))
        .sort(),
    ).toEqual(['0:0:0:0', '0:0:0:1', '0:0:0:2']);
    expect(t.host.readText(`${base}/0:0:0:0/type`)).toBe('12\n');
    expect(t.host.readDir(`${base}/0:0:0:0`)).not.toContain('block');
    expect(t.host.readDir('/sys/block').sort()).toEqual(['sda', 'sdb']);
    expect(
      t.host.readLink(`/dev/disk/by-path/${byPathName({ address: '127.0.0.1', port: 3260 }, T1, 2)}`),
    ).toBe('../../sdb');
  });

  test('node.session.scan=manual: no devices until a targeted scan, which adds only that LUN', async () => {
    t = labSim();
    await discover();
    await nodeUpdate(t.host, T1, '127.0.0.1:3260', 'node.session.scan', 'manual');
    await login(T1);
    expect(t.host.readDir('/sys/block')).toEqual([]);
    expect(t.host.stat('/sys/class/iscsi_session/session1/device/target0:0:0')).toBeUndefined();
    t.host.writeText('/sys/class/scsi_host/host0/scan', '0 0 2');
    expect(
      t.host.readDir('/sys/class/iscsi_session/session1/device/target0:0:0').filter((e) => e.includes(':')),
    ).toEqual(['0:0:0:2']);
    expect(t.host.readDir('/sys/block')).toEqual(['sda']);
    // `iscsiadm --rescan` scans every LUN even on a manual-scan session, as the real 6.1 kernel with
    // open-iscsi 2.1.8 did in the e2e suite: that is why kubelet writes targeted `0 0 L` scans instead.
    await iscsiadm(t.host, '-m', 'session', '-r', '1', '--rescan');
    expect(t.host.readDir('/sys/block').sort()).toEqual(['sda', 'sdb']);
  });

  test('bad scan input is EINVAL; a vanished host is ENOENT', async () => {
    t = labSim();
    await discover();
    await login(T1);
    const err = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return (e as HostIoError).code;
      }
      return 'ok';
    };
    expect(err(() => t.host.writeText('/sys/class/scsi_host/host0/scan', 'zero'))).toBe('EINVAL');
    expect(err(() => t.host.writeText('/sys/class/scsi_host/host7/scan', '- - -'))).toBe('ENOENT');
  });
});

describe('device attributes', () => {
  test('delete removes the device and its /dev nodes; EBUSY when scripted; state offline/running', async () => {
    t = labSim();
    await discover();
    await login(T1);
    t.sim.deleteBusy('sda');
    expect(() => t.host.writeText('/sys/block/sda/device/delete', '1')).toThrow(HostIoError);
    t.sim.deleteBusy('sda', false);
    // store_state_field wants the name followed by a newline, as `echo` writes it.
    expect(() => t.host.writeText('/sys/block/sdb/device/state', 'offline')).toThrow(HostIoError);
    t.host.writeText('/sys/block/sdb/device/state', 'offline\n');
    expect(t.host.readText('/sys/block/sdb/device/state')).toBe('offline\n');
    expect(() => t.host.writeText('/sys/block/sdb/device/state', 'bogus')).toThrow(HostIoError);
    t.host.writeText('/sys/block/sdb/device/state', 'running\n');
    t.host.writeText('/sys/block/sda/device/delete', '1');
    expect(t.host.stat('/sys/block/sda')).toBeUndefined();
    expect(t.host.stat('/dev/sda')).toBeUndefined();
    expect(
      t.host.stat(`/dev/disk/by-path/${byPathName({ address: '127.0.0.1', port: 3260 }, T1, 1)}`),
    ).toBeUndefined();
  });

  test('logout removes devices; multipath maps lose the paths but stay', async () => {
    const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
    t = labSim(labTargets(both));
    for (const p of both) await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', p);
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
    expect(t.host.readDir('/sys/block/dm-0/slaves')).toHaveLength(2);
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '--logout');
    expect(t.host.readDir('/sys/block').sort()).toEqual(['dm-0', 'dm-1']);
    expect(t.host.readDir('/sys/block/dm-0/slaves')).toEqual([]);
    expect((await t.host.run(['multipath', '-F'])).exitCode).toBe(0);
    expect(t.host.readDir('/sys/block')).toEqual([]);
    expect(t.host.readDir('/dev/mapper')).toEqual(['control']);
  });

  test('no multipath map while multipathd is stopped; made when it starts', async () => {
    const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
    t = labSim(labTargets(both));
    t.sim.stopDaemon('multipathd');
    for (const p of both) await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', p);
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
    expect(t.host.readDir('/sys/block').filter((b) => b.startsWith('dm-'))).toEqual([]);
    expect(t.host.stat('/proc/301')).toBeUndefined();
    t.sim.startDaemon('multipathd');
    expect(
      t.host
        .readDir('/sys/block')
        .filter((b) => b.startsWith('dm-'))
        .sort(),
    ).toEqual(['dm-0', 'dm-1']);
    expect(t.host.readText('/proc/301/comm')).toBe('multipathd\n');
  });
});

describe('outage timing (manual clock)', () => {
  test('portal down: FAILED + blocked + ENOTCONN; after replacement_timeout FREE + transport-offline; back: running', async () => {
    t = labSim();
    await discover();
    await login(T1);
    const changes: string[] = [];
    t.sim.onChange((c) => changes.push(c.what));
    t.sim.portalDown('127.0.0.1:3260');
    const s = '/sys/class/iscsi_session/session1';
    const c = '/sys/class/iscsi_connection/connection1:0';
    expect(t.host.readText(`${s}/state`)).toBe('FAILED\n');
    expect(t.host.readText('/sys/block/sda/device/state')).toBe('blocked\n');
    expect(t.host.readTextOrError(`${c}/address`)).toEqual({ error: 'ENOTCONN' });
    expect(t.host.readTextOrError('/sys/class/iscsi_host/host0/ipaddress')).toEqual({ error: 'ENOTCONN' });
    expect(t.host.readText(`${c}/persistent_address`)).toBe('127.0.0.1\n');
    t.sim.advance(119_000);
    expect(t.host.readText(`${s}/state`)).toBe('FAILED\n');
    t.sim.advance(1_000);
    expect(t.host.readText(`${s}/state`)).toBe('FREE\n');
    expect(t.host.readText('/sys/block/sda/device/state')).toBe('transport-offline\n');
    expect(changes).toContain('recovery timeout sid 1');
    t.sim.portalUp('127.0.0.1:3260');
    expect(t.host.readText(`${s}/state`)).toBe('LOGGED_IN\n');
    expect(t.host.readText('/sys/block/sdb/device/state')).toBe('running\n');
    expect(t.host.readText(`${c}/address`)).toBe('127.0.0.1\n');
  });

  test('multipath -ll hangs while a path is blocked (the caller timeout ends it); degraded map after', async () => {
    const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
    t = labSim(labTargets(both));
    for (const p of both) await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', p);
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
    t.sim.portalDown('127.0.0.2:3260');
    const ll = t.host.run(['multipath', '-ll'], { timeoutMs: 5_000 });
    t.sim.advance(5_000);
    const r = await ll;
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    t.sim.advance(120_000);
    const after = await t.host.run(['multipath', '-ll']);
    expect(after.stdout).toMatch(/failed faulty transport-offline/);
    expect(after.stdout).toMatch(/active ready running/);
  });

  test('recovery_tmo written through sysfs shortens the timer', async () => {
    t = labSim();
    await discover();
    await login(T1);
    t.host.writeText('/sys/class/iscsi_session/session1/recovery_tmo', '5');
    t.sim.portalDown('127.0.0.1:3260');
    t.sim.advance(5_000);
    expect(t.host.readText('/sys/class/iscsi_session/session1/state')).toBe('FREE\n');
  });
});

test('with iscsid stopped a returning portal does not recover sessions until iscsid starts', async () => {
  t = labSim();
  await discover();
  await login(T1);
  t.sim.portalDown('127.0.0.1:3260');
  t.sim.stopDaemon('iscsid');
  t.sim.portalUp('127.0.0.1:3260');
  expect(t.host.readText('/sys/class/iscsi_session/session1/state')).toBe('FAILED\n');
  t.sim.startDaemon('iscsid');
  expect(t.host.readText('/sys/class/iscsi_session/session1/state')).toBe('LOGGED_IN\n');
});

describe('multipathd and recovery_tmo', () => {
  const tmo = (sid: number) => t.host.readText(`/sys/class/iscsi_session/session${sid}/recovery_tmo`);

  test('sessions whose paths join a map get recovery_tmo 5 (mp-sysfs.txt); a single path keeps 120', async () => {
    const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
    t = labSim(labTargets(both));
    for (const p of both) await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', p);
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
    await login(T2);
    // T1 on two portals: sessions 1 and 2, both paths of dm-0/dm-1. T2: one portal, no map.
    expect([tmo(1), tmo(2), tmo(3)]).toEqual(['5\n', '5\n', '120\n']);
    const p3 = await iscsiadm(t.host, '-m', 'session', '-P', '3');
    expect(p3.stdout.match(/Recovery Timeout: \d+/g)).toEqual([
      'Recovery Timeout: 5',
      'Recovery Timeout: 5',
      'Recovery Timeout: 120',
    ]);
    // multipathd changes the kernel value only: the node record keeps iscsid.conf's replacement_timeout.
    const rec = await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.2:3260', '-o', 'show');
    expect(rec.stdout).toMatch(/^node\.session\.timeo\.replacement_timeout = 120$/m);
    // A lost path now fails over after 5 s, not 120.
    t.sim.portalDown('127.0.0.2:3260');
    t.sim.advance(5_000);
    const sid = t.sim.kernel.findSessions((s) => s.portal.address === '127.0.0.2')[0]!.sid;
    expect(t.host.readText(`/sys/class/iscsi_session/session${sid}/state`)).toBe('FREE\n');
  });

  test('without multipathd there is no map and recovery_tmo stays; multipathd lowers it when it starts', async () => {
    const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
    t = labSim(labTargets(both));
    t.sim.stopDaemon('multipathd');
    for (const p of both) await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', p);
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
    expect([tmo(1), tmo(2)]).toEqual(['120\n', '120\n']);
    t.sim.startDaemon('multipathd');
    expect([tmo(1), tmo(2)]).toEqual(['5\n', '5\n']);
  });
});

describe('SimHost.openReader (kept-open sysfs attributes, as the watchers poll them)', () => {
  test('reads follow state changes; after the device is deleted the reader fails like a sysfs fd (ENODEV)', async () => {
    t = labSim();
    await discover();
    await login(T1);
    const state = '/sys/bus/scsi/devices/0:0:0:1/state';
    const r = t.host.openReader(state)!;
    expect(r.read()).toBe('running\n');
    t.sim.deviceOffline('sda');
    expect(r.read()).toBe('offline\n');
    // Logout and login again: the same H:C:T:L names a new device; the old fd stays dead.
    await logout(T1);
    expect(r.read()).toBeUndefined();
    await login(T1);
    expect(t.host.readText(state)).toBe('running\n');
    expect(r.read()).toBeUndefined();
    r.close();
    const again = t.host.openReader(state)!;
    expect(again.read()).toBe('running\n');
    again.close();
    expect(t.host.openReader('/sys/bus/scsi/devices/9:0:0:9/state')).toBeUndefined();
  });
});
