import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UserError } from '../../src/engine/errors.js';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import type { SimHost } from '../../src/sim/index.js';
import { openSimHost, SCENARIOS } from '../../src/sim/index.js';

/** Every scenario read by the real snapshot engine, through the Host seam only. */

const KUBELET = { kubeletRoot: '/var/lib/kubelet' };
const short = (s: Snapshot['sessions'][number]) => `${s.targetIqn.split(':').pop()}@${s.portal}`;
const byName = (snap: Snapshot) =>
  Object.fromEntries(snap.sessions.map((s) => [short(s), [s.verdict, s.health, s.state]]));

function open(scenario: string) {
  let host!: SimHost;
  let close!: () => Promise<void>;
  beforeAll(async () => {
    ({ host, close } = await openSimHost({ scenario, clock: 'manual' }));
  });
  afterAll(() => close());
  return () => host;
}

test('the scenario list; unknown names are a UserError listing them', async () => {
  expect(SCENARIOS.map((s) => s.name)).toEqual([
    'incident',
    'healthy',
    'outage',
    'degraded',
    'empty',
    'csi',
    'scale',
  ]);
  await expect(openSimHost({ scenario: 'nope' })).rejects.toThrow(UserError);
  await expect(openSimHost({ scenario: 'nope' })).rejects.toMatchObject({
    hint: 'choose one of: incident, healthy, outage, degraded, empty, csi, scale',
  });
});

describe('degraded', () => {
  const host = open('degraded');
  test('one path of two, a LUN missing, a session down while its portal listens, an ext4 stopped', () => {
    const snap = takeSnapshot(host(), KUBELET);
    // A volume on one of its two paths: kubelet's metadata lists both portals, one session exists.
    const orders = snap.kubelet.volumes.find((v) => v.iqn.endsWith(':orders-data'))!;
    expect(orders.metadata?.Portals).toEqual(['10.0.0.10:3260', '10.0.0.11:3260']);
    expect(snap.sessions.filter((x) => x.targetIqn.endsWith(':orders-data')).map((x) => x.portal)).toEqual([
      '10.0.0.10:3260',
    ]);
    expect(host().sim.connectTcp('10.0.0.11', 3260).outcome).toBe('connected');
    // A LUN expected with no device.
    const cat = snap.sessions.find((x) => x.targetIqn.endsWith(':catalog-data'))!;
    expect(snap.kubelet.volumes.find((v) => v.iqn.endsWith(':catalog-data'))?.lun).toBe('2');
    expect(cat.devices.filter((d) => d.lun === 2)).toEqual([]);
    // A session down while its portal answers; without a probe the read can only call it an outage.
    const scratch = snap.sessions.find((x) => x.targetIqn.endsWith(':scratch'))!;
    expect(scratch.state).toBe('FAILED');
    expect(snap.outages.map((o) => o.portal)).toEqual([scratch.portal]);
    expect(host().sim.connectTcp('10.0.0.12', 3260).outcome).toBe('connected');
    // A filesystem forced read-only.
    expect(snap.fsErrors?.map((f) => [f.state, f.pods])).toEqual([['failing', ['db/pg-0']]]);
  });
});

describe('incident (the default)', () => {
  const host = open('incident');
  test('all four verdicts, a degraded multipath map and a failed session', () => {
    const snap = takeSnapshot(host(), KUBELET);
    expect(snap.node.kind).toBe('sim');
    expect(snap.problems).toEqual([]);
    expect(byName(snap)).toEqual({
      'postgres-data@10.0.0.10:3260': ['in-use', 'ok', 'LOGGED_IN'],
      'kafka-data@10.0.0.10:3260': ['in-use', 'degraded', 'LOGGED_IN'],
      'kafka-data@10.0.0.11:3260': ['in-use', 'failed', 'LOGGED_IN'],
      'old-logs@10.0.0.10:3260': ['stale', 'ok', 'LOGGED_IN'],
      'grafana-data@10.0.0.11:3260': ['orphaned', 'ok', 'LOGGED_IN'],
      'nightly-backup@10.0.0.11:3260': ['foreign', 'ok', 'LOGGED_IN'],
      'metrics-tsdb@10.0.0.12:3260': ['in-use', 'failed', 'FAILED'],
    });
    expect(snap.multipath).toHaveLength(1);
    expect(snap.multipath[0]!.failedSlaves).toHaveLength(1);
    expect(snap.mounts.some((m) => m.mountPoint === '/mnt/backup')).toBe(true);
    // The foreign login used iscsid.conf's default: node.startup=automatic records exist.
    expect(snap.nodeRecords.some((r) => r.startup === 'automatic')).toBe(true);
  });
});

describe('healthy', () => {
  const host = open('healthy');
  test('every session in use and ok; one multipath map; a block-mode volume held by a loop device', () => {
    const snap = takeSnapshot(host(), KUBELET);
    expect(snap.sessions).toHaveLength(5);
    expect(snap.sessions.every((s) => s.verdict === 'in-use' && s.health === 'ok')).toBe(true);
    expect(snap.multipath).toHaveLength(1);
    expect(Object.keys(snap.loops)).toEqual(['loop0']);
  });
});

describe('outage', () => {
  const host = open('outage');
  test('every session of 10.0.0.10:3260 failed at once, the other portal fine', () => {
    const snap = takeSnapshot(host(), KUBELET);
    const a = snap.sessions.filter((s) => s.portal === '10.0.0.10:3260');
    const b = snap.sessions.filter((s) => s.portal === '10.0.0.11:3260');
    // Four kubelet volumes and the admin's old scratch login (no pod: the overridable outage case).
    expect(a).toHaveLength(5);
    expect(a.every((s) => s.state === 'FAILED' && s.health === 'failed')).toBe(true);
    expect(a.filter((s) => s.verdict === 'outage').map((s) => s.targetIqn)).toEqual([
      'iqn.2026-01.lab.example:scratch-old',
    ]);
    expect(b.every((s) => s.state === 'LOGGED_IN' && s.health === 'ok')).toBe(true);
  });
});

describe('empty', () => {
  const host = open('empty');
  test('nothing logged in, but the attach wizard can discover loopback, IPv6 and CHAP targets', async () => {
    const snap = takeSnapshot(host(), KUBELET);
    expect(snap.sessions).toEqual([]);
    expect(snap.node.iscsiLoaded).toBe(true);
    const v4 = await host().run(['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260']);
    expect(v4.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    const v6 = await host().run([
      'iscsiadm',
      '-m',
      'discovery',
      '-t',
      'sendtargets',
      '-p',
      '[fd00:10::10]:3260',
    ]);
    expect(v6.stdout).toBe('[fd00:10::10]:3260,1 iqn.2026-01.lab.example:v6-volume\n');
    const chap = await host().run([
      'iscsiadm',
      '-m',
      'node',
      '-T',
      'iqn.2026-01.lab.example:secure-volume',
      '--login',
    ]);
    expect(chap.exitCode).toBe(24);
  });
});

describe('scale', () => {
  test('1,000 sessions x 4 LUNs, half multipath, read by the snapshot engine', async () => {
    const started = performance.now();
    const { host, close } = await openSimHost({ scenario: 'scale', clock: 'manual' });
    const builtMs = performance.now() - started;
    try {
      const snap = takeSnapshot(host, KUBELET);
      expect(snap.sessions).toHaveLength(1000);
      expect(snap.sessions.reduce((n, s) => n + s.devices.length, 0)).toBe(4000);
      expect(snap.multipath).toHaveLength(1000);
      expect(snap.problems).toEqual([]);
      // Timing is reported, not asserted: this shared CI box varies tenfold under load.
      console.info(`scale: materialised in ${Math.round(builtMs)} ms, snapshot in ${snap.readMs} ms`);
    } finally {
      await close();
    }
  }, 600_000);
});
