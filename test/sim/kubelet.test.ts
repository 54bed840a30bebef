import { afterEach, describe, expect, test } from 'vitest';
import { iscsiadm, labSim, labTargets, T1, type TestSim } from './helpers.js';

let t: TestSim;
afterEach(() => t?.close());

const GLOBAL = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${T1}-lun-1`;
const POD = '11111111-2222-4333-8444-555555555555';
const POD_DIR = `/var/lib/kubelet/pods/${POD}/volumes/kubernetes.io~iscsi/pv1`;

describe('simulated kubelet, filesystem volume', () => {
  test('attach: targeted scan only, node records manual, iscsi.json hidden under the mount, pod bind mount', async () => {
    t = labSim();
    const v = await t.sim.kubeletAttach({
      portals: ['127.0.0.1'],
      iqn: T1,
      lun: 1,
      volName: 'pv1',
      podUIDs: [POD],
    });
    expect(v.globalPath).toBe(GLOBAL);
    expect(v.devicePath).toBe(`/dev/disk/by-path/ip-127.0.0.1:3260-iscsi-${T1}-lun-1`);
    // kubelet scans only its LUN: no LUN 0 controller, no LUN 2.
    expect(
      t.host.readDir('/sys/class/iscsi_session/session1/device/target0:0:0').filter((e) => e.includes(':')),
    ).toEqual(['0:0:0:1']);
    const node = t.host.readText(`/etc/iscsi/nodes/${T1}/127.0.0.1,3260,1/default`)!;
    expect(node).toContain('node.startup = manual\n');
    expect(node).toContain('node.session.scan = manual\n');
    const mountinfo = t.host.readText('/proc/1/mountinfo')!;
    expect(mountinfo).toContain(` / ${GLOBAL} rw,relatime shared:`);
    expect(mountinfo).toMatch(
      new RegExp(` / ${POD_DIR} rw,relatime shared:\\d+ - ext4 /dev/sda rw,stripe=4\\n`),
    );
    // The metadata file is under the mount: the mounted filesystem shows lost+found instead.
    expect(t.host.readDir(GLOBAL)).toEqual(['lost+found']);
    expect(t.host.readDir(POD_DIR)).toEqual(['lost+found']);
    expect(t.host.readText(`${GLOBAL}/iscsi.json`)).toBeUndefined();
    // rmdir of a mountpoint is EBUSY, as on Linux.
    expect(() => t.host.rmdir(POD_DIR)).toThrow(/EBUSY/);
  });

  test('detach: unmounts, iscsi.json readable again, devices deleted, logout, node record deleted, dir removed', async () => {
    t = labSim();
    const v = await t.sim.kubeletAttach({
      portals: ['127.0.0.1:3260'],
      iqn: T1,
      lun: 1,
      volName: 'pv1',
      podUIDs: [POD],
    });
    await t.sim.kubelet.tearDownPod(v, POD);
    await t.host.run(['umount', GLOBAL]);
    expect(JSON.parse(t.host.readText(`${GLOBAL}/iscsi.json`)!)).toEqual({
      VolName: 'pv1',
      Portals: ['127.0.0.1:3260'],
      Iqn: T1,
      Lun: '1',
      InitIface: 'default',
      Iface: 'default',
      InitiatorName: '',
      MetricsProvider: null,
    });
    await t.sim.kubeletDetach(GLOBAL);
    expect(t.host.stat(GLOBAL)).toBeUndefined();
    expect(t.host.readDir('/sys/class/iscsi_session')).toEqual([]);
    expect(t.host.stat(`/etc/iscsi/nodes/${T1}`)).toBeUndefined();
    expect(t.host.readText('/proc/1/mountinfo')).not.toContain('kubelet');
  });

  test('isSessionBusy: a second LUN of the same target keeps the session logged in', async () => {
    t = labSim();
    await t.sim.kubeletAttach({
      portals: ['127.0.0.1:3260'],
      iqn: T1,
      lun: 1,
      volName: 'pv1',
      podUIDs: [POD],
    });
    const v2 = await t.sim.kubeletAttach({
      portals: ['127.0.0.1:3260'],
      iqn: T1,
      lun: 2,
      volName: 'pv2',
      podUIDs: ['pod-b'],
    });
    await t.sim.kubeletDetach(v2.globalPath);
    expect(t.host.readDir('/sys/class/iscsi_session')).toEqual(['session1']);
    expect(t.host.readDir('/sys/block')).toEqual(['sda']);
    await t.sim.kubeletDetach(GLOBAL);
    expect(t.host.readDir('/sys/class/iscsi_session')).toEqual([]);
  });

  test('kubelet can detach what an admin attached the same way (records, mounts, dirs)', async () => {
    t = labSim();
    // The "console" does kubelet's steps by hand through the Host and iscsiadm.
    await iscsiadm(
      t.host,
      '-m',
      'discoverydb',
      '-t',
      'sendtargets',
      '-p',
      '127.0.0.1:3260',
      '-I',
      'default',
      '--discover',
    );
    await iscsiadm(
      t.host,
      '-m',
      'node',
      '-p',
      '127.0.0.1:3260',
      '-T',
      T1,
      '-I',
      'default',
      '-o',
      'update',
      '-n',
      'node.session.scan',
      '-v',
      'manual',
    );
    await iscsiadm(t.host, '-m', 'node', '-p', '127.0.0.1:3260', '-T', T1, '-I', 'default', '--login');
    t.host.writeText('/sys/class/scsi_host/host0/scan', '0 0 1');
    t.host.mkdir(GLOBAL, 0o750);
    t.host.writeText(
      `${GLOBAL}/iscsi.json`,
      `${JSON.stringify({ VolName: 'pv1', Portals: ['127.0.0.1:3260'], Iqn: T1, Lun: '1', InitIface: 'default', Iface: 'default', InitiatorName: '', MetricsProvider: null })}\n`,
    );
    await t.host.run(['mkfs.ext4', '-F', '-m0', '/dev/sda']);
    await t.host.run(['mount', '-t', 'ext4', '-o', 'defaults', '/dev/sda', GLOBAL]);
    // kubelet's own detach logic, reading only what is on disk.
    t.sim.kubelet.volumes.set(GLOBAL, {
      opts: { portals: ['127.0.0.1:3260'], iqn: T1, lun: 1, volName: 'pv1', podUIDs: [], iface: 'default' },
      globalPath: GLOBAL,
      devicePath: '/dev/sda',
      pods: new Set(),
    });
    await t.sim.kubeletDetach(GLOBAL);
    expect(t.host.readDir('/sys/class/iscsi_session')).toEqual([]);
    expect(t.host.stat(GLOBAL)).toBeUndefined();
  });
});

describe('simulated kubelet, block volume and multipath', () => {
  test('block: device bind-mounted on <globalMapPath>/<podUID>, loop device holds it; detach releases all', async () => {
    t = labSim();
    const v = await t.sim.kubeletAttach({
      portals: ['127.0.0.1:3260'],
      iqn: T1,
      lun: 2,
      volName: 'raw',
      podUIDs: [POD],
      mode: 'block',
    });
    const node = `${v.globalPath}/${POD}`;
    expect(v.globalPath).toContain('/volumeDevices/iface-default/');
    expect(t.host.readText('/proc/1/mountinfo')).toMatch(new RegExp(` 0:5 /sda ${node} `));
    expect(t.host.readText('/sys/block/loop0/loop/backing_file')).toBe(`${node}\n`);
    expect(t.host.readText(`${v.globalPath}/iscsi.json`)).toContain('"Lun":"2"');
    expect(t.host.readLink(`/var/lib/kubelet/pods/${POD}/volumeDevices/kubernetes.io~iscsi/raw`)).toBe(
      '/dev/sda',
    );
    await t.sim.kubeletDetach(v.globalPath);
    expect(t.host.stat('/sys/block/loop0')).toBeUndefined();
    expect(t.host.readDir('/sys/class/iscsi_session')).toEqual([]);
  });

  test('multipath: both portals, device path is the dm map; detach flushes the map first', async () => {
    const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
    t = labSim(labTargets(both));
    const v = await t.sim.kubeletAttach({ portals: both, iqn: T1, lun: 1, volName: 'pv1', podUIDs: [POD] });
    expect(v.devicePath).toBe('/dev/dm-0');
    expect(t.host.readText('/proc/1/mountinfo')).toContain('254:0 / ');
    expect((await t.host.run(['multipath', '-f', 'mpatha'])).stderr).toBe('mpatha: map in use\n');
    await t.sim.kubeletDetach(v.globalPath);
    expect(t.host.readDir('/sys/block')).toEqual([]);
    expect(t.host.readDir('/sys/class/iscsi_session')).toEqual([]);
  });
});
