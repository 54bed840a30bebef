/**
 * The simulator writes the raw tools' facts a real node keeps (udev database records, multipathd's
 * and device-mapper's view of each map, negotiated parameters, pod dirs), and the engine reads them
 * through the same Host seam: the `--demo` console and `status --json` show them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import {
  addMultipathTopology,
  followMultipathTopology,
  readMultipathTopology,
} from '../../src/engine/snapshot/multipath-topology.js';
import { multipathLlLines } from '../../src/engine/text/multipath-ll.js';
import { openSimHost } from '../../src/sim/index.js';
import { KUBELET_ROOT } from '../../src/sim/kubelet.js';
import { sessionDetailLines } from '../../src/ui/views/session-detail.js';
import { iscsiadm, labSim, labTargets, T1, type TestSim } from './helpers.js';

let t: TestSim | undefined;
let closeDemo: (() => Promise<void>) | undefined;
afterEach(async () => {
  t?.close();
  t = undefined;
  await closeDemo?.();
  closeDemo = undefined;
});

const snap = (x: TestSim) => takeSnapshot(x.host, { kubeletRoot: KUBELET_ROOT });

/** Two portals to target1: mpatha (LUN 1) and mpathb (LUN 2), as in the mp-* captures. */
async function twoPortals(): Promise<TestSim> {
  const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
  const x = labSim(labTargets(both));
  for (const p of both) await iscsiadm(x.host, '-m', 'discovery', '-t', 'sendtargets', '-p', p);
  await iscsiadm(x.host, '-m', 'node', '-T', T1, '--login');
  return x;
}

describe('multipath topology on the simulator', () => {
  it('multipathd answers while a path is blocked (where multipath -ll hangs), in -ll words', async () => {
    t = await twoPortals();
    t.sim.portalDown('127.0.0.2:3260');
    const s = snap(t);
    await addMultipathTopology(t.host, s, true);
    expect(s.problems).toEqual([]);
    const a = s.multipath.find((m) => m.alias === 'mpatha')!;
    expect(a.topology?.source).toBe('multipathd');
    const ll = multipathLlLines(a);
    expect(ll[0]).toBe(`features='0' hwhandler='0' wp=rw`);
    expect(ll.filter((l) => l.includes('policy='))).toHaveLength(2);
    expect(ll.some((l) => / sd[a-z]+ 8:\d+ +active ready running$/.test(l))).toBe(true);
    expect(ll.some((l) => / sd[a-z]+ 8:\d+ +failed faulty blocked$/.test(l))).toBe(true);
  });

  it('falls back to the dm table and status when multipathd is not running (no priorities, no checker)', async () => {
    t = await twoPortals();
    t.sim.stopDaemon('multipathd');
    const read = await readMultipathTopology(t.host);
    expect(read.source).toBe('dmsetup');
    expect(read.problems).toEqual([]);
    const s = snap(t);
    await addMultipathTopology(t.host, s, true);
    const ll = multipathLlLines(s.multipath[0]!);
    expect(ll[1]).toBe(`|-+- policy='service-time 0' status=active`);
    expect(ll[2]).toMatch(/^\| `- \d:0:0:1 sd[a-z]+ 8:\d+ +active - running$/);
  });

  it('runs nothing where commands do not reach the node read, or when there is no map', async () => {
    t = labSim();
    const s = snap(t);
    await addMultipathTopology(t.host, s, true);
    expect(s.multipath).toEqual([]);
    t.close();
    t = await twoPortals();
    const s2 = snap(t);
    await addMultipathTopology(t.host, s2, false);
    expect(s2.multipath[0]!.topology).toBeUndefined();
  });

  it('a watcher follows: a read starts when paths change, and the next snapshot carries it', async () => {
    t = await twoPortals();
    const x = t;
    const changes: boolean[] = [];
    const next = (s: Snapshot) =>
      new Promise<Snapshot>((resolve) =>
        followMultipathTopology(x.host, s, (changed) => {
          changes.push(changed);
          resolve(snap(x));
        }),
      );
    const first = await next(snap(x));
    expect(first.multipath[0]!.topology?.pathGroups.map((g) => g.state)).toEqual(['active', 'enabled']);
    // Nothing changed: no second read (the callback would never come).
    let again = false;
    followMultipathTopology(x.host, first, () => {
      again = true;
    });
    x.sim.pathFail('sda');
    const after = await next(snap(x));
    expect(again).toBe(false);
    const paths = after.multipath[0]!.topology!.pathGroups.flatMap((g) => g.paths);
    expect(paths.find((p) => p.dev === 'sda')).toMatchObject({
      dmState: 'failed',
      checkerState: 'faulty',
      devState: 'transport-offline',
    });
    // A read older than a minute is renewed at the next snapshot even with nothing changed.
    const readAt = after.multipath[0]!.topology!.readAt;
    x.sim.advance(61_000);
    const renewed = await next(snap(x));
    expect(Date.parse(renewed.multipath[0]!.topology!.readAt)).toBeGreaterThan(Date.parse(readAt));
    // The first read and the failed path were news (the watcher re-reads the node for them); the
    // renewal found the same topology, so the watcher needs no second snapshot for it.
    expect(changes).toEqual([true, true, false]);
  });
});

describe('--demo facts', () => {
  it('healthy: filesystems from udev, mpath members, negotiated parameters and pod names', async () => {
    const o = await openSimHost({ scenario: 'healthy', clock: 'manual' });
    closeDemo = o.close;
    const s = takeSnapshot(o.host, { kubeletRoot: KUBELET_ROOT });
    const pg = s.sessions.find((x) => x.targetIqn.endsWith(':postgres-data'))!;
    expect(pg.devices[0]!.fs?.type).toBe('ext4');
    expect(pg.devices[0]!.fs?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(pg.params?.maxBurstLength).toBe(262144);
    expect(pg.connections[0]!.params?.headerDigest).toBe('None');
    const kafka = s.sessions.filter((x) => x.targetIqn.endsWith(':kafka-data'));
    expect(kafka.map((x) => x.devices[0]!.fs?.type)).toEqual(['mpath_member', 'mpath_member']);
    expect(s.multipath[0]!.fs?.type).toBe('ext4');
    const labels = Object.values(s.kubelet.pods ?? {}).map((p) => `${p.namespace}/${p.name}`);
    expect(labels.sort()).toEqual(['db/postgres-0', 'db/redis-0', 'payments/ledger-0', 'streaming/kafka-0']);
    // Reasons name the pod the way the detail does.
    expect(pg.reasons.some((r) => /^pod db\/postgres-0 volume pv-postgres-data refers to /.test(r))).toBe(
      true,
    );
  });

  it('the session detail shows them as the raw tools word them, at most 80 columns for the new lines', async () => {
    const o = await openSimHost({ scenario: 'healthy', clock: 'manual' });
    closeDemo = o.close;
    const s = takeSnapshot(o.host, { kubeletRoot: KUBELET_ROOT });
    await addMultipathTopology(o.host, s, true);
    const kafka = s.sessions.find((x) => x.targetIqn.endsWith(':kafka-data'))!;
    const text = sessionDetailLines(s, kafka, Date.parse(s.takenAt)).map((l) => l.text);
    const from = (first: string, n: number) => text.slice(text.indexOf(first), text.indexOf(first) + n);
    expect(from('Negotiated iSCSI params', 5)).toEqual([
      'Negotiated iSCSI params',
      '  FirstBurstLength 65536  MaxBurstLength 262144  MaxOutstandingR2T 1',
      '  ImmediateData Yes  InitialR2T Yes  ErrorRecoveryLevel 0',
      '  DataPDUInOrder Yes  DataSequenceInOrder Yes',
      '  Timeouts (s): Target Reset 30  LUN Reset 30  Abort 15',
    ]);
    expect(text).toContain('    HeaderDigest None  DataDigest None');
    expect(text).toContain('      fs mpath_member');
    expect(text).toContain(`          |-+- policy='service-time 0' prio=1 status=active`);
    expect(text).toContain('          (from multipathd, read 0 s ago)');
    expect(text.some((l) => /^ {6}→ pod streaming\/kafka-0 volume pv-kafka-data$/.test(l))).toBe(true);
    const added = text.filter((l) =>
      /HeaderDigest|MaxRecv|Burst|R2T|InOrder|Timeouts|policy=|`- |fs /.test(l),
    );
    for (const l of added) expect(l.length).toBeLessThanOrEqual(80);
  });
});
