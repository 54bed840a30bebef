import { afterEach, describe, expect, it } from 'vitest';
import { makePDName, makeVDPDName, podVolumeDir } from '../../src/engine/kubelet/paths.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { captureStdout, materializeLsLinks } from '../helpers/materialize-sysfs.js';
import { FixtureRoot, IQN1, IQN2, iscsiJson, KROOT, P1 } from './fixture-root.js';

const fixtures: FixtureRoot[] = [];
function single(): FixtureRoot {
  const f = new FixtureRoot('single-sysfs.json');
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

describe('snapshot of the single-session capture', () => {
  it('reads the session, its connection, host and devices as captured', () => {
    const f = single();
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.schemaVersion).toBe(2);
    expect(snap.node).toMatchObject({
      hostname: 'node-a',
      root: f.root,
      kind: 'root',
      kubeletRoot: KROOT,
      iscsiLoaded: true,
    });
    expect(snap.sessions).toHaveLength(1);
    const s = snap.sessions[0]!;
    expect(s).toMatchObject({
      sid: 1,
      name: 'session1',
      targetIqn: IQN1,
      portal: P1,
      tpgt: 1,
      iface: 'default',
      initiatorName: 'iqn.1993-08.org.debian:01:labguest0001',
      state: 'LOGGED_IN',
      recoveryTmo: 120,
      hostNumber: 0,
      hostState: 'running',
      ipaddress: '127.0.0.1',
      key: `${IQN1}|${P1}|default`,
    });
    expect(s.netdev).toBeUndefined(); // "(null)" in sysfs
    expect(s.connections).toEqual([
      {
        name: 'connection1:0',
        persistentAddress: '127.0.0.1',
        persistentPort: 3260,
        address: '127.0.0.1',
        port: 3260,
        state: 'up',
        // What `iscsiadm -m session -P 3` printed for this session (single-session-P3.txt).
        params: {
          headerDigest: 'None',
          dataDigest: 'None',
          maxRecvDataSegmentLength: 262144,
          maxXmitDataSegmentLength: 8192,
        },
      },
    ]);
    // single-session-P3.txt: FirstBurstLength 65536, MaxBurstLength 262144, ImmediateData Yes,
    // InitialR2T Yes, MaxOutstandingR2T 1; Target Reset 30, LUN Reset 30, Abort 15.
    expect(s.params).toEqual({
      firstBurstLength: 65536,
      maxBurstLength: 262144,
      immediateData: true,
      initialR2T: true,
      maxOutstandingR2T: 1,
      dataPduInOrder: true,
      dataSequenceInOrder: true,
      erl: 0,
      targetResetTmo: 30,
      lunResetTmo: 30,
      abortTmo: 15,
    });
    expect(s.devices.map((d) => [d.hctl, d.lun, d.name, d.state, d.majMin, d.sizeBytes])).toEqual([
      ['0:0:0:0', 0, undefined, 'running', undefined, undefined],
      ['0:0:0:1', 1, 'sda', 'running', '8:0', 64 * 1024 * 1024],
      ['0:0:0:2', 2, 'sdb', 'running', '8:16', 32 * 1024 * 1024],
    ]);
    const lun0 = s.devices[0]!;
    expect(lun0).toMatchObject({ vendor: 'IET', model: 'Controller', type: 12, holders: [], partitions: [] });
    expect(s.devices[1]).toMatchObject({
      vendor: 'IET',
      model: 'VIRTUAL-DISK',
      rev: '0001',
      type: 0,
      wwid: 'naa.60000000000000000e00000000010001',
    });
    expect(s.devices[1]!.key).toBe(`${IQN1}|${P1}|default|1`);
    expect(snap.portalHostMap).toEqual({ [IQN1]: { '127.0.0.1:3260': 0 } });
    expect(snap.multipath).toEqual([]);
    expect(s.verdict).toBe('stale');
    expect(s.health).toBe('ok');
    expect(s.reasons.join('\n')).toMatch(/no mount, swap, loop device, pod volume or kubelet global dir/);
    expect(s.kubeletBusy).toBe(false);
    expect(s.kubeletDisagreement).toBeUndefined();
    expect(snap.problems).toEqual([]);
  });

  it('is foreign when a LUN is mounted outside the kubelet root (the captured mountinfo line)', () => {
    const f = single();
    const captured = captureStdout('single-mountinfo.txt').split('\n')[0]!;
    expect(captured).toContain('/mnt/lun1');
    f.mountinfo([captured]);
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.verdict).toBe('foreign');
    expect(s.devices[1]!.mountpoints).toEqual(['/mnt/lun1']);
    expect(s.reasons[0]).toBe('sda is mounted at /mnt/lun1 (outside the kubelet root)');
  });

  it('is foreign when a partition is swap, and counts partition mounts as the disk’s', () => {
    const f = single().partition('sdb', 'sdb1', '8:17').partition('sdb', 'sdb2', '8:18');
    f.swaps(['/dev/sdb1']).mountinfo(['40 22 8:18 / /data\\040dir rw,relatime - ext4 /dev/sdb2 rw']);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const sdb = snap.sessions[0]!.devices[2]!;
    expect(sdb.partitions).toEqual(['sdb1', 'sdb2']);
    expect(sdb.swap).toBe(true);
    expect(sdb.mountpoints).toEqual(['/data dir']);
    expect(snap.swaps).toEqual(['/dev/sdb1']);
    expect(snap.sessions[0]!.verdict).toBe('foreign');
    expect(snap.sessions[0]!.reasons).toContain('sdb1 → sdb is swap (/dev/sdb1) (outside the kubelet root)');
  });

  it('finds partitions through /sys/class/block when present (one listing instead of one per disk)', () => {
    const f = single().partition('sdb', 'sdb1', '8:17').classBlock(['sda', 'sdb', 'sdb1']);
    f.mountinfo(['40 22 8:17 / /p1 rw - ext4 /dev/sdb1 rw']);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.devices[2]!).toMatchObject({ partitions: ['sdb1'], mountpoints: ['/p1'] });
    expect(snap.sessions[0]!.devices[1]!.partitions).toEqual([]);
  });

  it('is in-use through kubelet FS and block volumes, pods and a loop device; iscsi.json hidden under the mount', () => {
    const f = single();
    const g1 = f.fsVolume(P1, IQN1, 1, iscsiJson('pv-a', [P1], IQN1, 1));
    const g2 = f.blockVolume(P1, IQN1, 2, iscsiJson('pv-b', [P1], IQN1, 2), ['uid-b']);
    const podA = f.podFsVolume('uid-a', 'pv-a');
    const podB = f.podBlockVolume('uid-b', 'pv-b', '/dev/sdb');
    f.loop('loop0', `${g2}/uid-b`);
    f.mountinfo([
      `40 22 8:0 / ${g1} rw,relatime shared:30 - ext4 /dev/sda rw`,
      `41 22 8:0 / ${podA} rw,relatime shared:30 - ext4 /dev/sda rw`,
      `42 23 0:5 /sdb ${g2}/uid-b rw,nosuid shared:2 - devtmpfs udev rw,size=4000k,mode=755`,
    ]);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const s = snap.sessions[0]!;
    expect(s.verdict).toBe('in-use');
    expect(s.health).toBe('ok');
    expect(s.devices[1]!.mountpoints).toEqual([g1, podA]);
    // The device node bind mount is not a filesystem mount of sdb (lsblk shows none): it is its own use.
    expect(s.devices[2]!.mountpoints).toEqual([]);
    expect(s.devices[2]!.blockBinds).toEqual([
      { path: `${g2}/uid-b`, via: 'sdb', kubelet: true, podUid: 'uid-b' },
    ]);
    expect(s.reasons).toContain(
      `sdb's device node is bound at ${g2}/uid-b (kubelet block volume, pod uid-b (name unknown))`,
    );
    expect(s.reasons.join('\n')).not.toContain(`sdb is mounted at ${g2}`);
    expect(s.devices[2]!.loops).toEqual(['loop0']);
    expect(snap.loops).toEqual({ loop0: `${g2}/uid-b` });
    expect(s.kubeletVolumes.sort()).toEqual([g1, g2].sort());
    expect(s.pods.sort()).toEqual(['uid-a', 'uid-b']);
    expect(s.reasons).toContain(`sda is mounted at ${g1}`);
    expect(s.reasons).toContain(`sdb is held by loop0 (backing file ${g2}/uid-b)`);
    expect(s.reasons).toContain(`pod uid-a (name unknown) volume pv-a refers to ${g1}`);
    // kubelet counts 1 FS dir + 1 block dir for 127.0.0.1:3260-<iqn> → busy; both volumes in use: agree.
    expect(s.kubeletBusy).toBe(true);
    expect(s.kubeletDisagreement).toBeUndefined();

    const vols = snap.kubelet.volumes;
    const fsVol = vols.find((v) => v.path === g1)!;
    expect(fsVol).toMatchObject({
      mode: 'filesystem',
      iface: 'default',
      portal: P1,
      iqn: IQN1,
      lun: '1',
      metadataSource: 'hidden',
      mounted: true,
      sessions: [1],
      pods: ['uid-a'],
      problems: [],
    });
    expect(fsVol.metadata).toBeUndefined();
    expect(fsVol.notes?.[0]).toMatch(/hidden under the mount/);
    const blockVol = vols.find((v) => v.path === g2)!;
    expect(blockVol).toMatchObject({
      mode: 'block',
      metadataSource: 'iscsi.json',
      mounted: false,
      podDevices: ['uid-b'],
      sessions: [1],
      pods: ['uid-b'],
    });
    expect(blockVol.metadata).toMatchObject({
      VolName: 'pv-b',
      Portals: [P1],
      Iqn: IQN1,
      Lun: '2',
      Iface: 'default',
    });
    expect(snap.kubelet.podVolumes).toEqual([
      { podUid: 'uid-a', volName: 'pv-a', path: podA, mode: 'filesystem', mounted: true, globalPath: g1 },
      { podUid: 'uid-b', volName: 'pv-b', path: podB, mode: 'block', mounted: true, globalPath: g2 },
    ]);
  });

  it('is orphaned when only an unused global dir refers to it; kubelet disagrees once two dirs exist', () => {
    const f = single();
    const g1 = f.fsVolume(P1, IQN1, 1, iscsiJson('pv-a', [P1], IQN1, 1));
    let s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.verdict).toBe('orphaned');
    expect(s.kubeletVolumes).toEqual([g1]);
    expect(s.reasons[0]).toContain(`kubelet global dir ${g1} refers to ${P1} ${IQN1}`);
    expect(s.kubeletBusy).toBe(false);
    expect(s.kubeletDisagreement).toBeUndefined();

    f.fsVolume(P1, IQN1, 2); // a leftover dir without iscsi.json
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    s = snap.sessions[0]!;
    expect(s.verdict).toBe('orphaned');
    expect(s.kubeletBusy).toBe(true);
    expect(s.kubeletDisagreement).toMatch(/kubelet counts 2 global dirs .* nothing uses it/);
    const leftover = snap.kubelet.volumes.find((v) => v.lun === '2')!;
    expect(leftover.metadataSource).toBe('path');
    expect(leftover.problems[0]).toMatch(/no iscsi.json/);
  });

  it('leaves a pod volume with its global dir but no session (other target) out of the verdict', () => {
    const f = single();
    const other = f.fsVolume(P1, IQN2, 1, iscsiJson('pv-x', [P1], IQN2, 1));
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('stale');
    expect(snap.kubelet.volumes.find((v) => v.path === other)!.sessions).toEqual([]);
  });

  it('reports health failed and degraded from session and device states', () => {
    const f = single();
    f.setAttr('/sys/block/sdb/device/state', 'offline\n');
    let s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.health).toBe('degraded');
    expect(s.reasons).toContain('sdb (0:0:0:2) is offline');

    // Target lost: session FAILED, devices blocked (README "Facts observed on the real kernel").
    f.setAttr('/sys/class/iscsi_session/session1/state', 'FAILED\n');
    for (const d of ['0:0:0:0', '0:0:0:1', '0:0:0:2'])
      f.setAttr(`/sys/class/scsi_device/${d}/device/state`, 'blocked\n');
    s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.health).toBe('failed');
    expect(s.reasons).toContain('session state is FAILED, not LOGGED_IN');
    expect(s.reasons).toContain('no SCSI device of the session is running');
  });

  it('reads /dev/disk/by-path links from the captured listing', () => {
    const f = single();
    materializeLsLinks(captureStdout('single-dev-disk.txt'), f.root);
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.devices[1]!.byPath).toEqual([`/dev/disk/by-path/ip-127.0.0.1:3260-iscsi-${IQN1}-lun-1`]);
    expect(s.devices[0]!.byPath).toEqual([]);
  });

  it('uses host paths everywhere: nothing in the snapshot carries the fixture root except node.root', () => {
    const f = single();
    f.fsVolume(P1, IQN1, 1, iscsiJson('pv-a', [P1], IQN1, 1));
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const { node, ...rest } = snap;
    expect(JSON.stringify(rest)).not.toContain(f.root);
    expect(node.root).toBe(f.root);
    expect(makePDName(KROOT, 'default', P1, IQN1, 1)).toBe(snap.kubelet.volumes[0]!.path);
    expect(podVolumeDir(KROOT, 'u', 'v')).toBe(`${KROOT}/pods/u/volumes/kubernetes.io~iscsi/v`);
    expect(makeVDPDName(KROOT, 'default', P1, IQN1, 1)).toContain('/volumeDevices/iface-default/');
  });
});
