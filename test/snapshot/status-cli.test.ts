import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Snapshot } from '../../src/engine/model.js';
import { captureOutput } from '../helpers/capture-output.js';
import { captureStdout } from '../helpers/materialize-sysfs.js';
import { FixtureRoot, IQN1, iscsiJson, P1, P2 } from './fixture-root.js';

const fixtures: FixtureRoot[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

const capture = captureOutput;

function mpRoot(): FixtureRoot {
  const f = new FixtureRoot('mp-sysfs.json');
  fixtures.push(f);
  f.mountinfo([captureStdout('mp-mountinfo.txt').split('\n')[0]!]);
  f.fsVolume(P1, IQN1, 2, iscsiJson('pv-m', [P1, P2], IQN1, 2));
  f.fsVolume(P1, IQN1, 3, '{broken');
  return f;
}

describe('iscsi-console status', () => {
  it('--json prints one snapshot document for a --root tree', async () => {
    const f = mpRoot();
    const o = capture();
    const code = await main(['status', '--json', '--root', f.root], o);
    expect(o.err).toBe('');
    expect(code).toBe(0);
    expect(o.out.trim().split('\n')).toHaveLength(1);
    const snap = JSON.parse(o.out) as Snapshot;
    expect(snap.schemaVersion).toBe(2);
    expect(snap.node.root).toBe(f.root);
    expect(snap.sessions.map((s) => [s.sid, s.portal, s.verdict, s.health])).toEqual([
      [7, P2, 'foreign', 'ok'],
      [8, P1, 'foreign', 'ok'],
    ]);
    expect(snap.portalHostMap[IQN1]).toEqual({ '127.0.0.2:3260': 0, '127.0.0.1:3260': 1 });
    expect(snap.multipath.map((m) => [m.name, m.alias, m.mountpoints])).toEqual([
      ['dm-0', 'mpatha', ['/mnt/mp1']],
      ['dm-1', 'mpathb', []],
    ]);
    expect(snap.kubelet.volumes).toHaveLength(2);
  });

  it('honours --kubelet-root', async () => {
    const f = mpRoot();
    const o = capture();
    await main(['status', '--json', '--root', f.root, '--kubelet-root', '/srv/kubelet/'], o);
    const snap = JSON.parse(o.out) as Snapshot;
    expect(snap.node.kubeletRoot).toBe('/srv/kubelet');
    expect(snap.kubelet.volumes).toEqual([]);
  });

  it('prints an aligned, plain table without --json', async () => {
    const f = mpRoot();
    const o = capture();
    const code = await main(['status', '--root', f.root, '--no-color'], o);
    expect(code).toBe(0);
    const text = o.out;
    expect(text).not.toContain('\x1b[');
    const lines = text.split('\n');
    // The node summary (problems.ts) on top, under the node line: the console's summary line.
    expect(lines[1]).toMatch(/^(all \d+ sessions? ok|\d+ (failed|degraded|outage|stale|orphaned)\b.*)$/);
    // The headers are the status --json field names (status-columns.ts).
    const header = lines.find((l) => l.startsWith('sid'))!;
    expect(header).toMatch(
      /^sid\s+targetIqn\s+portal\s+iface\s+state\s+hostNumber\s+devices\s+verdict\s+health$/,
    );
    const row7 = lines.find((l) => l.startsWith('7 '))!;
    const row8 = lines.find((l) => l.startsWith('8 '))!;
    // Columns line up: VERDICT starts at the same offset on header and rows.
    expect(row7.indexOf('foreign')).toBe(header.indexOf('verdict'));
    expect(row8.indexOf('foreign')).toBe(header.indexOf('verdict'));
    expect(row7).toContain(`${IQN1}  127.0.0.2:3260  default  LOGGED_IN  0`);
    expect(row7).toMatch(/sdb,sdd\s+foreign\s+ok$/);
    expect(text).toContain('  - dm-0 (mpatha) → sdb is mounted at /mnt/mp1 (outside the kubelet root)');
    expect(text).toContain('KUBELET VOLUMES (2)');
    expect(text).toMatch(/iscsi.json is not valid JSON/);
    expect(text).toMatch(
      /dm-0\s+mpatha\s+360000000000000000e00000000010001\s+64MiB\s+sda,sdb\s+-\s+\/mnt\/mp1/,
    );
    // Both kubelet dirs (lun-2, lun-3) have no pod and no mount: the closing list names them, and
    // nothing failed to be read (no NOT READ section).
    expect(text).toContain('PROBLEMS (2 volumes)');
    expect(text).toMatch(/! orphaned kubelet volume \S+storage\.target1-lun-2: /);
    expect(text).toMatch(/! orphaned kubelet volume \S+storage\.target1-lun-3: /);
    expect(text).not.toContain('NOT READ');
  });

  it('shows an empty node plainly', async () => {
    const f = new FixtureRoot();
    fixtures.push(f);
    const o = capture();
    await main(['status', '--root', f.root], o);
    expect(o.out).toContain('iSCSI modules not loaded');
    expect(o.out).toContain('SESSIONS (0)\n  none');
    // The node summary (problems.ts) on top, under the node line.
    expect(o.out.split('\n')[1]).toBe('no iSCSI sessions');
  });

  it('prints the node summary on top: the same words as the console summary line (--demo incident)', async () => {
    const o = capture();
    expect(await main(['status', '--demo', 'incident', '--no-color'], o)).toBe(0);
    expect(o.out.split('\n')[1]).toBe(
      '2 failed · 1 degraded · 1 stale · 1 orphaned · portal 10.0.0.12:3260 down',
    );
  });
});
