import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseIscsiJson, parseMountinfo, parseSwaps, takeSnapshot } from '../../src/engine/snapshot/index.js';
import { FixtureRoot, IQN1, iscsiJson, KROOT, P1 } from './fixture-root.js';
import { wrapHost } from './host-wrappers.js';

const fixtures: FixtureRoot[] = [];
function fixture(capture?: string): FixtureRoot {
  const f = new FixtureRoot(capture);
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

describe('reads that must survive a live node', () => {
  it('an absent /sys/class/iscsi_host (modules not loaded) is an empty node, not an error', () => {
    const f = fixture();
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.node.iscsiLoaded).toBe(false);
    expect(snap.sessions).toEqual([]);
    expect(snap.portalHostMap).toEqual({});
    expect(snap.multipath).toEqual([]);
    expect(snap.problems).toEqual([]);
  });

  it('drops a session that vanishes mid-read (dir deleted on first read of its targetname) and keeps the other', () => {
    const f = fixture('mp-sysfs.json');
    let deleted = false;
    const host = wrapHost(f.host(), (p) => {
      if (!deleted && p.endsWith('/session7/iscsi_session/session7/targetname')) {
        deleted = true;
        fs.rmSync(f.at('/sys/devices/platform/host0/session7'), { recursive: true });
      }
      return undefined;
    });
    const snap = takeSnapshot(host, { kubeletRoot: KROOT });
    expect(deleted).toBe(true);
    expect(snap.sessions.map((s) => s.sid)).toEqual([8]);
    expect(snap.problems).toContain('session7 vanished while being read (logged out?)');
    // The maps still list the vanished paths, whose devices now read as not running.
    expect(snap.multipath.map((m) => m.failedSlaves)).toEqual([['sdb'], ['sdd']]);
    expect(snap.sessions[0]!.health).toBe('degraded');
  });

  it('drops a device that vanishes mid-read (ENODEV on its state)', () => {
    const f = fixture('single-sysfs.json');
    const host = wrapHost(f.host(), (p) => (p.endsWith('/0:0:0:2/state') ? 'ENODEV' : undefined));
    const s = takeSnapshot(host, { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.devices.map((d) => d.hctl)).toEqual(['0:0:0:0', '0:0:0:1']);
  });

  it('falls back to persistent_* while a connection is down (ENOTCONN) and leaves it out of kubelet’s map', () => {
    const f = fixture('single-sysfs.json');
    const host = wrapHost(f.host(), (p) =>
      /connection1:0\/(address|port)$/.test(p) || p.endsWith('/iscsi_host/host0/ipaddress')
        ? 'ENOTCONN'
        : undefined,
    );
    const snap = takeSnapshot(host, { kubeletRoot: KROOT });
    const s = snap.sessions[0]!;
    expect(s.portal).toBe(P1);
    expect(s.connections[0]).toEqual({
      name: 'connection1:0',
      persistentAddress: '127.0.0.1',
      persistentPort: 3260,
      state: 'up',
      // The negotiated parameters still read while the address does not (docs/status-schema.md).
      params: expect.any(Object),
    });
    expect(s.ipaddress).toBeUndefined();
    // kubelet skips a connection on any read error (PR #74306): no key, so it would log in again.
    expect(snap.portalHostMap).toEqual({});
  });

  it('reads IPv6 portals bracketed and keys the portal→host map in both forms', () => {
    const f = fixture('single-sysfs.json');
    for (const a of ['address', 'persistent_address'])
      f.setAttr(`/sys/class/iscsi_connection/connection1:0/${a}`, 'fd00::1\n');
    const g = f.fsVolume('[fd00::1]:3260', IQN1, 1, iscsiJson('pv6', ['[fd00::1]:3260'], IQN1, 1));
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const s = snap.sessions[0]!;
    expect(s.portal).toBe('[fd00::1]:3260');
    expect(s.key).toBe(`${IQN1}|[fd00::1]:3260|default`);
    expect(snap.portalHostMap).toEqual({ [IQN1]: { 'fd00::1:3260': 0, '[fd00::1]:3260': 0 } });
    expect(s.verdict).toBe('orphaned');
    expect(s.kubeletVolumes).toEqual([g]);
  });

  it('reads a disabled recovery timer ("off", as the kernel shows -1) as -1, not as unknown', () => {
    const f = fixture('single-sysfs.json');
    f.setAttr('/sys/class/iscsi_session/session1/recovery_tmo', 'off\n');
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.recoveryTmo).toBe(-1);
  });

  it('tolerates unreadable and odd attribute values', () => {
    const f = fixture('single-sysfs.json');
    f.setAttr('/sys/class/iscsi_session/session1/tpgt', 'garbage\n');
    f.setAttr('/sys/class/iscsi_session/session1/recovery_tmo', '\n');
    f.setAttr('/sys/block/sda/size', '-12x\n');
    f.setAttr('/sys/block/sdb/device/state', '  running  \n');
    const host = wrapHost(f.host(), (p) =>
      p.endsWith('/0:0:0:1/vendor') || p.endsWith('/ifacename') ? 'EACCES' : undefined,
    );
    const s = takeSnapshot(host, { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.tpgt).toBe(-1);
    expect(s.recoveryTmo).toBeUndefined();
    expect(s.iface).toBe('default');
    expect(s.devices[1]!.sizeBytes).toBeUndefined();
    expect(s.devices[1]!.vendor).toBeUndefined();
    expect(s.devices[2]!.state).toBe('running');
  });

  it('reports an unreadable targetname as a problem without dropping the session', () => {
    const f = fixture('single-sysfs.json');
    const host = wrapHost(f.host(), (p) => (p.endsWith('/targetname') ? 'EIO' : undefined));
    const snap = takeSnapshot(host, { kubeletRoot: KROOT });
    expect(snap.sessions).toHaveLength(1);
    expect(snap.problems).toContain('session1: targetname unreadable (EIO)');
  });

  it('reports malformed iscsi.json as a problem on that volume and falls back to the dir name', () => {
    const f = fixture('single-sysfs.json');
    const bad = f.fsVolume(P1, IQN1, 1, '{"VolName": "pv-a", "Portals": [');
    const typed = f.fsVolume(P1, IQN1, 2, '{"Iqn": 42, "Portals": "x"}');
    const arr = f.fsVolume(P1, IQN1, 3, '[1,2]');
    const weird = f.fsVolume('10.9.9.9:3260', 'iqn.2024-01.other:t', 0, '{}', 'weird');
    f.fsVolume('not-a-volume', '', '', undefined);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const byPath = new Map(snap.kubelet.volumes.map((v) => [v.path, v]));
    expect(byPath.get(bad)).toMatchObject({ metadataSource: 'path', portal: P1, iqn: IQN1, lun: '1' });
    expect(byPath.get(bad)!.problems[0]).toMatch(/^iscsi.json is not valid JSON/);
    expect(byPath.get(typed)!.problems[0]).toMatch(
      /^iscsi.json has unexpected field types \(Portals: .*Iqn: /,
    );
    expect(byPath.get(arr)!.problems[0]).toBe('iscsi.json is not a JSON object');
    expect(byPath.get(weird)!.problems[0]).toBe('iscsi.json names no Iqn');
    const nv = snap.kubelet.volumes.find((v) => v.path.endsWith('/not-a-volume--lun-'))!;
    expect(nv.problems).toContain(
      'dir name is not <portal>-<iqn>-lun-<n>: kubelet cannot identify this volume',
    );
    expect(snap.sessions[0]!.verdict).toBe('orphaned');
  });

  it('notes where kubelet’s own fallback would misread a hyphenated hostname portal', () => {
    const f = fixture('single-sysfs.json');
    const g = f.fsVolume('san-a.example.com:3260', IQN1, 0);
    const v = takeSnapshot(f.host(), { kubeletRoot: KROOT }).kubelet.volumes.find((x) => x.path === g)!;
    expect(v.portal).toBe('san-a.example.com:3260');
    expect(v.notes?.[0]).toMatch(/would read portal "san"/);
  });

  it('reports an unreadable mount table without failing', () => {
    const f = fixture('single-sysfs.json');
    fs.rmSync(f.at('/proc/1/mountinfo'));
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.mounts).toEqual([]);
    expect(snap.problems).toContain('cannot read /proc/1/mountinfo (ENOENT): mounts unknown');
  });
});

describe('text parsers', () => {
  it('decodes mountinfo octal escapes and optional fields, skipping malformed lines', () => {
    const { mounts, bad } = parseMountinfo(
      [
        '36 35 98:0 /mnt1 /mnt/a\\040b\\011c rw,noatime master:1 shared:2 - ext3 /dev/ro\\134ot rw,errors=continue',
        '37 29 8:0 / /mnt/lun1 rw,relatime - ext4 /dev/sda rw,stripe=4',
        'garbage line',
        '38 29 x:y / /m rw - ext4 /dev/sdz rw',
      ].join('\n'),
    );
    expect(bad).toBe(2);
    expect(mounts[0]).toEqual({
      mountId: 36,
      parentId: 35,
      majMin: '98:0',
      root: '/mnt1',
      mountPoint: '/mnt/a b\tc',
      options: 'rw,noatime',
      fsType: 'ext3',
      source: '/dev/ro\\ot',
      superOptions: 'rw,errors=continue',
    });
    expect(mounts[1]!.mountPoint).toBe('/mnt/lun1');
  });

  it('parses /proc/swaps', () => {
    expect(
      parseSwaps(
        'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/sdb1                               partition\t1020\t\t0\t\t-2\n/swap\\040file file 100 0 -3\n',
      ),
    ).toEqual(['/dev/sdb1', '/swap file']);
    expect(parseSwaps('Filename\tType\tSize\tUsed\tPriority\n')).toEqual([]);
  });

  it('validates iscsi.json leniently: old field sets, numeric Lun, unknown fields', () => {
    expect(parseIscsiJson('{"Portals":["10.0.0.1:3260"],"Iqn":"iqn.2024-01.x:y"}')).toEqual({
      ok: true,
      value: { Portals: ['10.0.0.1:3260'], Iqn: 'iqn.2024-01.x:y' },
    });
    expect(parseIscsiJson('{"Iqn":"iqn.2024-01.x:y","Lun":3,"MetricsProvider":null,"chap":"x"}')).toEqual({
      ok: true,
      value: { Iqn: 'iqn.2024-01.x:y', Lun: '3' },
    });
  });
});
