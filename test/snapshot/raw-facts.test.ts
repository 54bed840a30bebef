/**
 * The raw tools' facts on fixture roots built from the real captures: what `lsblk -O` (FSTYPE,
 * LABEL, UUID from the udev database), `multipath -ll` (path groups, from multipathd's JSON or the
 * dm table and status, never -ll itself) and the kubelet's pod dirs (names) say, read through the
 * Host like every other fact, and shown in the session detail once per mount.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/commands/status-text.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { joinDm, parseDmStatus, parseDmTable, splitDmLine } from '../../src/engine/snapshot/multipath-dm.js';
import {
  applyTopology,
  dmTopology,
  multipathdTopology,
  type ReadTopology,
  type TopologyRead,
} from '../../src/engine/snapshot/multipath-topology.js';
import { parseMultipathdMaps } from '../../src/engine/snapshot/multipathd-json.js';
import { parseEtcHosts, parsePodLogDir } from '../../src/engine/snapshot/pod-names.js';
import { parseUdevFs } from '../../src/engine/snapshot/udev-db.js';
import { multipathLlLines } from '../../src/engine/text/multipath-ll.js';
import { podLabel } from '../../src/engine/text/pod-names.js';
import { sessionDetailLines } from '../../src/ui/views/session-detail.js';
import { captureStdout } from '../helpers/materialize-sysfs.js';
import { FixtureRoot, KROOT } from './fixture-root.js';
import { recordingHost } from './host-wrappers.js';

const fixtures: FixtureRoot[] = [];
function root(capture: string): FixtureRoot {
  const f = new FixtureRoot(capture);
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

/** A udev database file from a `udevadm info --query=all` capture: its S:/E: records without the space. */
function udevDb(capture: string): string {
  return captureStdout(capture)
    .split('\n')
    .filter((l) => /^[SE]: /.test(l))
    .map((l) => l.replace(/^([SE]): /, '$1:'))
    .join('\n');
}

const UID_A = '0f1e2d3c-4b5a-4697-8877-665544332211';
const UID_B = '11111111-2222-4333-8444-555555555555';

describe('FSTYPE/LABEL/UUID from the udev database (no process per device)', () => {
  it('reads the captured record of mpatha as lsblk -O shows it (mp-udevadm-info-dm.txt)', () => {
    const f = root('mp-sysfs.json');
    f.write('/run/udev/data/b254:0', udevDb('mp-udevadm-info-dm.txt'));
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.multipath[0]!.fs).toEqual({
      type: 'ext4',
      label: 'lablun1',
      uuid: '66833615-5f26-46f4-adfb-a0ffebd3681a',
    });
    expect(snap.multipath[1]!.fs).toBeUndefined();
  });

  it('an unformatted disk has no FSTYPE (single-udevadm-info.txt: sda has no ID_FS_* keys)', () => {
    const f = root('single-sysfs.json');
    f.write('/run/udev/data/b8:0', udevDb('single-udevadm-info.txt'));
    f.write(
      '/run/udev/data/b8:16',
      'E:ID_FS_TYPE=xfs\nE:ID_FS_UUID=1b2c\nE:ID_FS_LABEL=my_data\nE:ID_FS_LABEL_ENC=my\\x20data\n',
    );
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const [sda, sdb] = snap.sessions[0]!.devices.filter((d) => d.name);
    expect(sda!.fs).toBeUndefined();
    // LABEL as lsblk shows it: ID_FS_LABEL_ENC unescaped (udev turns the space into `_` in ID_FS_LABEL).
    expect(sdb!.fs).toEqual({ type: 'xfs', label: 'my data', uuid: '1b2c' });
  });

  it('keeps a hostile label exact in JSON and makes it visible, not active, on a terminal', () => {
    const f = root('single-sysfs.json');
    f.write('/run/udev/data/b8:0', 'E:ID_FS_TYPE=ext4\nE:ID_FS_LABEL_ENC=x\\x1b]0;pwned\\x07\\x1b[2J\n');
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const sda = snap.sessions[0]!.devices.find((d) => d.name === 'sda')!;
    expect(sda.fs?.label).toBe('x\x1b]0;pwned\x07\x1b[2J');
    const text = formatStatus(snap, (t) => t);
    expect(text).toContain('LABEL=x\\x1b]0;pwned\\x07\\x1b[2J');
    expect(text).not.toContain('\x1b');
  });

  it('parses only the filesystem keys; a record without them is none', () => {
    expect(parseUdevFs('S:disk/by-id/x\nE:DEVNAME=/dev/sdb\nG:systemd\n')).toBeUndefined();
    expect(parseUdevFs('E:ID_FS_TYPE=swap\nE:ID_FS_UUID=\n')).toEqual({ type: 'swap' });
  });

  it('costs one read per sd path and multipath map, no process', () => {
    const f = root('mp-sysfs.json');
    const { host, reads } = recordingHost(f.host());
    takeSnapshot(host, { kubeletRoot: KROOT });
    const udev = reads.filter((r) => r.path.startsWith('/run/udev/data/'));
    // 4 sd paths + 2 multipath maps.
    expect(udev.map((r) => r.path).sort()).toEqual(
      ['b254:0', 'b254:1', 'b8:0', 'b8:16', 'b8:32', 'b8:48'].map((n) => `/run/udev/data/${n}`),
    );
  });
});

describe('negotiated parameters (iscsiadm -P 3, from sysfs)', () => {
  it('are read once per login: again only when a connection has a new local port', () => {
    const f = root('single-sysfs.json');
    const { host, reads } = recordingHost(f.host());
    const first = takeSnapshot(host, { kubeletRoot: KROOT });
    const paramReads = () => reads.filter((r) => /\/(max_burst_len|header_digest)$/.test(r.path)).length;
    expect(paramReads()).toBe(2);
    expect(first.sessions[0]!.params?.maxBurstLength).toBe(262144);
    const again = takeSnapshot(host, { kubeletRoot: KROOT });
    expect(paramReads()).toBe(2);
    expect(again.sessions[0]!.params).toEqual(first.sessions[0]!.params);
    // A reconnect is a new TCP connection: new local port, keys negotiated anew.
    const conn = '/sys/devices/platform/host0/session1/connection1:0/iscsi_connection/connection1:0';
    f.setAttr(`${conn}/local_port`, '40001\n');
    f.setAttr(`${conn}/header_digest`, '1\n');
    const relogin = takeSnapshot(host, { kubeletRoot: KROOT });
    expect(paramReads()).toBe(4);
    expect(relogin.sessions[0]!.connections[0]!.params?.headerDigest).toBe('CRC32C');
  });
});

describe('multipath topology, worded as multipath -ll, without running it', () => {
  /** The group and path lines of the captured `multipath -ll` for one map. */
  function llLines(map: string): string[] {
    const out = captureStdout('mp-multipath-ll.txt').split('\n');
    const start = out.findIndex((l) => l.startsWith(`${map} `));
    const lines: string[] = [];
    for (const l of out.slice(start + 2)) {
      if (!/^[|` ]/.test(l) || l === '') break;
      lines.push(l);
    }
    return lines;
  }

  it("multipathd's JSON gives every word -ll printed (mp-multipathd-show-maps-json.txt vs mp-multipath-ll.txt)", async () => {
    const f = root('mp-sysfs.json');
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const json = captureStdout('mp-multipathd-show-maps-json.txt');
    expect(parseMultipathdMaps(json).map((m) => [m.name, m.sysfs, m.groups.length])).toEqual([
      ['mpatha', 'dm-0', 2],
      ['mpathb', 'dm-1', 2],
    ]);
    applyTopology(snap.multipath, snap.sessions, read('multipathd', multipathdTopology(json)));
    for (const m of snap.multipath) {
      expect(multipathLlLines(m)).toEqual([`features='0' hwhandler='0' wp=rw`, ...llLines(m.alias)]);
    }
    // status prints each map under its table as -ll does.
    const text = formatStatus(snap, (t) => t);
    const ll = [`features='0' hwhandler='0' wp=rw`, ...llLines('mpatha')];
    expect(text).toContain(
      ['mpatha (360000000000000000e00000000010001) dm-0', ...ll.map((l) => `  ${l}`)].join('\n'),
    );
  });

  it('the dm table and status give groups, policy and dm states (mp-dmsetup-table.txt, mp-dmsetup-status.txt)', () => {
    const table = captureStdout('mp-dmsetup-table.txt')
      .split('\n')
      .map(splitDmLine)
      .filter((x) => x !== undefined);
    const status = captureStdout('mp-dmsetup-status.txt')
      .split('\n')
      .map(splitDmLine)
      .filter((x) => x !== undefined);
    expect(table.map((t) => t.name)).toEqual(['mpatha', 'mpathb']);
    const a = joinDm(parseDmTable(table[0]!.words), parseDmStatus(status[0]!.words));
    expect(a).toEqual({
      features: '0',
      hwhandler: '0',
      groups: [
        {
          selector: 'service-time 0',
          state: 'active',
          paths: [{ devT: '8:16', active: true, failCount: 0 }],
        },
        {
          selector: 'service-time 0',
          state: 'enabled',
          paths: [{ devT: '8:0', active: true, failCount: 0 }],
        },
      ],
    });
  });

  it('skips counted words it does not know (features, hw handler, selector args) and refuses a cut line', () => {
    const t = parseDmTable(
      '3 queue_if_no_path pg_init_retries 50 1 alua 1 1 round-robin 1 7 2 1 8:16 1000 8:32 1000'.split(' '),
    );
    expect(t.features).toBe('3 queue_if_no_path pg_init_retries 50');
    expect(t.hwhandler).toBe('1 alua');
    expect(t.groups).toEqual([{ selector: 'round-robin 1 7', paths: [{ devT: '8:16' }, { devT: '8:32' }] }]);
    expect(() => parseDmStatus('2 0 0 0 1 1 A 0 1 2 8:16'.split(' '))).toThrow(/ended early/);
    expect(() => parseDmStatus('2 0 0 0 1 1 X 0 0 0'.split(' '))).toThrow(/group state/);
  });

  it('the dm source names paths by their device numbers and says what it cannot know', () => {
    const f = root('mp-sysfs.json');
    f.setAttr('/sys/block/sdb/device/state', 'offline\n');
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    // The captured table; a status after sdb failed three times and dm switched to group 2.
    const table = captureStdout('mp-dmsetup-table.txt');
    const status = 'mpatha: 0 131072 multipath 2 0 0 0 2 2 E 0 1 2 8:16 F 3 0 1 A 0 1 2 8:0 A 0 0 1\n';
    const problems: string[] = [];
    applyTopology(snap.multipath, snap.sessions, read('dmsetup', dmTopology(table, status, problems)));
    expect(problems).toEqual([]);
    expect(multipathLlLines(snap.multipath[0]!)).toEqual([
      `features='0' hwhandler='0'`,
      `|-+- policy='service-time 0' status=enabled`,
      '| `- 0:0:0:1 sdb 8:16 failed - offline',
      `\`-+- policy='service-time 0' status=active`,
      '  `- 1:0:0:1 sda 8:0  active - running',
    ]);
    expect(snap.multipath[0]!.topology!.pathGroups[0]!.paths[0]!.failCount).toBe(3);
    // mpathb has a table line but no status line: groups and policy, no states.
    expect(multipathLlLines(snap.multipath[1]!)[1]).toBe(`|-+- policy='service-time 0' status=undef`);
  });
});

describe('pod names from the node (pod log dirs, then etc-hosts), else the UID', () => {
  it('names pods by their log dir, falls back to etc-hosts, and keeps the UID where neither says', () => {
    const f = root('single-sysfs.json');
    const g = f.fsVolume('127.0.0.1:3260', 'iqn.2024-01.lab.example:storage.target1', 1);
    f.podFsVolume(UID_A, 'pv-a');
    f.podFsVolume(UID_B, 'pv-b');
    f.podFsVolume('not-a-uid', 'pv-c');
    f.write(`/var/log/pods/shop_web-0_${UID_A}/web/0.log`, '');
    f.write('/var/log/pods/junk_entry/x', '');
    f.write(
      `${KROOT}/pods/${UID_B}/etc-hosts`,
      '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n10.1.2.3\tworker-3.workers.batch.svc.cluster.local\tworker-3\n\n# Entries added by HostAliases.\n10.9.9.9\tfoo.local\n',
    );
    void g;
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.kubelet.pods).toEqual({
      [UID_A]: { namespace: 'shop', name: 'web-0', source: 'pod-logs' },
      [UID_B]: { name: 'worker-3', source: 'etc-hosts' },
    });
    expect(podLabel(snap.kubelet.pods, UID_A)).toBe('shop/web-0');
    expect(podLabel(snap.kubelet.pods, UID_B)).toBe('worker-3 (namespace unknown)');
    expect(podLabel(snap.kubelet.pods, 'not-a-uid')).toBe('not-a-uid (name unknown)');
  });

  it('refuses names that are not DNS names and host-network hosts files', () => {
    expect(parsePodLogDir(`ns_web-0_${UID_A}`)).toEqual({ namespace: 'ns', name: 'web-0', uid: UID_A });
    expect(parsePodLogDir(`ns_we\x1b]0;x\x07b_${UID_A}`)).toBeUndefined();
    expect(parsePodLogDir(`a_b_c_${UID_A}`)).toBeUndefined();
    expect(
      parseEtcHosts('# Kubernetes-managed hosts file (host network).\n10.0.0.1\tnode-a\n'),
    ).toBeUndefined();
    expect(parseEtcHosts('# Kubernetes-managed hosts file.\n10.0.0.1\tEVIL\x1b[2J\n')).toBeUndefined();
  });
});

describe('the session detail lists each mount once, where it is', () => {
  it('a mount of the multipath map is under the map, not again under the sd path', () => {
    const f = root('mp-sysfs.json');
    f.mountinfo([
      captureStdout('mp-mountinfo.txt').split('\n')[0]!,
      '50 22 8:48 / /mnt/raw rw - ext4 /dev/sdd rw',
    ]);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const s7 = snap.sessions.find((s) => s.sid === 7)!;
    const text = sessionDetailLines(snap, s7).map((l) => l.text);
    expect(text.filter((l) => l.includes('→ mounted at /mnt/mp1'))).toEqual([
      '          → mounted at /mnt/mp1',
    ]);
    const mapLine = text.findIndex((l) => l.includes('→ dm-0 mpatha'));
    expect(text.indexOf('          → mounted at /mnt/mp1')).toBeGreaterThan(mapLine);
    // A mount of the sd itself stays under the sd.
    expect(text).toContain('      → mounted at /mnt/raw');
  });
});

/** A topology read as readMultipathTopology keeps it, from a source's parsed maps. */
function read(source: 'multipathd' | 'dmsetup', maps: Map<string, ReadTopology>): TopologyRead {
  return { at: '2026-12-02T05:00:00.000Z', source, maps, problems: [], fingerprint: '' };
}
