import { afterEach, describe, expect, it } from 'vitest';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { captureStdout, materializeLsLinks } from '../helpers/materialize-sysfs.js';
import { FixtureRoot, IQN1, iscsiJson, KROOT, P1, P2 } from './fixture-root.js';

const fixtures: FixtureRoot[] = [];
function mp(): FixtureRoot {
  const f = new FixtureRoot('mp-sysfs.json');
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

describe('snapshot of the multipath capture (two portals, dm-0/dm-1)', () => {
  it('reads both sessions, their hosts, paths, holders and the maps', () => {
    const f = mp();
    materializeLsLinks(captureStdout('mp-dev-links.txt'), f.root);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions.map((s) => [s.sid, s.portal, s.hostNumber, s.recoveryTmo])).toEqual([
      [7, P2, 0, 5],
      [8, P1, 1, 5],
    ]);
    const [s7, s8] = snap.sessions as [(typeof snap.sessions)[0], (typeof snap.sessions)[0]];
    expect(s7.devices.map((d) => [d.hctl, d.name ?? null, d.holders])).toEqual([
      ['0:0:0:0', null, []],
      ['0:0:0:1', 'sdb', ['dm-0']],
      ['0:0:0:2', 'sdd', ['dm-1']],
    ]);
    expect(s8.devices.map((d) => [d.hctl, d.name ?? null, d.holders])).toEqual([
      ['1:0:0:0', null, []],
      ['1:0:0:1', 'sda', ['dm-0']],
      ['1:0:0:2', 'sdc', ['dm-1']],
    ]);
    expect(snap.portalHostMap).toEqual({ [IQN1]: { '127.0.0.2:3260': 0, '127.0.0.1:3260': 1 } });
    expect(snap.multipath).toEqual([
      {
        name: 'dm-0',
        alias: 'mpatha',
        wwid: '360000000000000000e00000000010001',
        uuid: 'mpath-360000000000000000e00000000010001',
        majMin: '254:0',
        sizeBytes: 64 * 1024 * 1024,
        slaves: ['sda', 'sdb'],
        holders: [],
        mountpoints: [],
        failedSlaves: [],
        mapperLink: true,
      },
      {
        name: 'dm-1',
        alias: 'mpathb',
        wwid: '360000000000000000e00000000010002',
        uuid: 'mpath-360000000000000000e00000000010002',
        majMin: '254:1',
        sizeBytes: 32 * 1024 * 1024,
        slaves: ['sdc', 'sdd'],
        holders: [],
        mountpoints: [],
        failedSlaves: [],
        mapperLink: true,
      },
    ]);
    expect(s8.devices[1]!.byPath).toEqual([`/dev/disk/by-path/ip-127.0.0.1:3260-iscsi-${IQN1}-lun-1`]);
    expect(snap.sessions.map((s) => [s.verdict, s.health])).toEqual([
      ['stale', 'ok'],
      ['stale', 'ok'],
    ]);
  });

  it('attributes a mount of the dm map to both paths (captured mp-mountinfo line): foreign', () => {
    const f = mp();
    f.mountinfo([captureStdout('mp-mountinfo.txt').split('\n')[0]!]);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    for (const s of snap.sessions) {
      expect(s.verdict).toBe('foreign');
      const lun1 = s.devices.find((d) => d.lun === 1)!;
      expect(lun1.mountpoints).toEqual(['/mnt/mp1']);
      expect(s.reasons[0]).toBe(
        `dm-0 (mpatha) → ${lun1.name} is mounted at /mnt/mp1 (outside the kubelet root)`,
      );
      expect(s.devices.find((d) => d.lun === 2)!.mountpoints).toEqual([]);
    }
    expect(snap.multipath[0]!.mountpoints).toEqual(['/mnt/mp1']);
    expect(snap.multipath[1]!.mountpoints).toEqual([]);
  });

  it('is in-use on both sessions when kubelet mounts the map; the volume refers to both sessions', () => {
    const f = mp();
    const g = f.fsVolume(P1, IQN1, 2, iscsiJson('pv-m', [P1, P2], IQN1, 2));
    const pod = f.podFsVolume('uid-m', 'pv-m');
    f.mountinfo([
      `40 22 254:1 / ${g} rw,relatime shared:30 - ext4 /dev/mapper/mpathb rw`,
      `41 22 254:1 / ${pod} rw,relatime shared:30 - ext4 /dev/mapper/mpathb rw`,
    ]);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions.map((s) => s.verdict)).toEqual(['in-use', 'in-use']);
    expect(snap.kubelet.volumes[0]!.sessions).toEqual([7, 8]);
    expect(snap.kubelet.volumes[0]!.pods).toEqual(['uid-m']);
    expect(snap.multipath[1]!.mountpoints).toEqual([g, pod]);
    // kubelet asks isSessionBusy with Portals[0] only; one dir → not busy; one volume in use → no disagreement.
    expect(snap.sessions.map((s) => s.kubeletBusy)).toEqual([false, false]);
    expect(snap.sessions.every((s) => s.kubeletDisagreement === undefined)).toBe(true);
  });

  it('is degraded when a path of a map fails, on both sessions sharing the map', () => {
    const f = mp();
    f.setAttr('/sys/block/sdd/device/state', 'offline\n');
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.multipath[1]!.failedSlaves).toEqual(['sdd']);
    const [s7, s8] = snap.sessions;
    expect(s7!.health).toBe('degraded');
    expect(s7!.reasons).toContain('sdd (0:0:0:2) is offline');
    expect(s8!.health).toBe('degraded');
    expect(s8!.reasons).toContain('multipath map mpathb (dm-1) lost a path: sdd not running');
  });

  it('flags kubelet disagreement when two volumes use the session but kubelet counts only one dir', () => {
    const f = mp();
    // Two LUNs in use, but one volume's dir is named by the other portal: kubelet's prefix count sees 1 each.
    const g1 = f.fsVolume(P1, IQN1, 1, iscsiJson('pv-1', [P1], IQN1, 1));
    const g2 = f.fsVolume(P2, IQN1, 2, iscsiJson('pv-2', [P2, P1], IQN1, 2));
    f.mountinfo([
      `40 22 254:0 / ${g1} rw - ext4 /dev/mapper/mpatha rw`,
      `41 22 254:1 / ${g2} rw - ext4 /dev/mapper/mpathb rw`,
    ]);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const s8 = snap.sessions.find((s) => s.sid === 8)!;
    expect(s8.verdict).toBe('in-use');
    expect(s8.kubeletBusy).toBe(false);
    expect(s8.kubeletDisagreement).toMatch(
      /would log out when one volume detaches, though 2 volumes use this session/,
    );
  });
});
