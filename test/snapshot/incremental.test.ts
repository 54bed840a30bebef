/**
 * refreshSnapshot (src/engine/snapshot/incremental.ts) must give exactly what a full takeSnapshot
 * gives for the same node state: each case changes the simulated node, runs both reads and compares
 * them (all but takenAt/readMs), and checks the incremental path really ran (or really fell back).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src/engine/host/host.js';
import type { Snapshot } from '../../src/engine/model.js';
import {
  type ChangedSessions,
  type RefreshResult,
  refreshSnapshot,
  takeSnapshot,
} from '../../src/engine/snapshot/index.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { recordingHost } from './host-wrappers.js';

const OPTS = { kubeletRoot: '/var/lib/kubelet' };
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function open(scenario: 'incident' | 'healthy'): Promise<SimHost> {
  const { host, close } = await openSimHost({ scenario, clock: 'manual' });
  closers.push(close);
  return host;
}

function comparable(s: Snapshot): Omit<Snapshot, 'takenAt' | 'readMs'> {
  const { takenAt: _t, readMs: _r, ...rest } = s;
  return rest;
}

/** Refreshes `prev` after `changed`, checks it against a full read, and that `prev` was not touched. */
function refreshAndCompare(host: Host, prev: Snapshot, changed: ChangedSessions): RefreshResult {
  const before = structuredClone(prev);
  const r = refreshSnapshot(host, OPTS, prev, changed);
  const full = takeSnapshot(host, OPTS);
  expect(comparable(r.snapshot)).toEqual(comparable(full));
  expect(prev).toEqual(before);
  return r;
}

function sessionOf(snap: Snapshot, sd: string): number {
  const s = snap.sessions.find((x) => x.devices.some((d) => d.name === sd));
  if (!s) throw new Error(`no session holds ${sd}`);
  return s.sid;
}

/** A running sd disk of a LOGGED_IN session, preferring one under a multipath map. */
function someDisk(snap: Snapshot, multipathed: boolean): string {
  const slaves = new Set(snap.multipath.flatMap((m) => m.slaves));
  for (const s of snap.sessions) {
    if (s.state !== 'LOGGED_IN') continue;
    for (const d of s.devices)
      if (d.name && d.state === 'running' && slaves.has(d.name) === multipathed) return d.name;
  }
  throw new Error(`no running ${multipathed ? 'multipathed' : 'plain'} disk`);
}

describe('refreshSnapshot equals a full snapshot', () => {
  for (const scenario of ['incident', 'healthy'] as const) {
    it(`${scenario}: device offline, path failed, session FAILED, recovery timeout`, async () => {
      const host = await open(scenario);
      let prev = takeSnapshot(host, OPTS);

      const sd = someDisk(prev, false);
      host.sim.deviceOffline(sd);
      let r = refreshAndCompare(host, prev, { sids: [sessionOf(prev, sd)], structural: false });
      expect(r.incremental).toBe(true);
      expect(r.snapshot.sessions.flatMap((s) => s.devices).find((d) => d.name === sd)?.state).toBe('offline');
      prev = r.snapshot;

      // A refresh of a refresh: the basis carries over.
      host.sim.pathFail(sd, 'running');
      r = refreshAndCompare(host, prev, { sids: [sessionOf(prev, sd)], structural: false });
      expect(r.incremental).toBe(true);
      prev = r.snapshot;

      const portal = prev.sessions.find((s) => s.state === 'LOGGED_IN')!.portal;
      host.sim.portalDown(portal);
      const onPortal = prev.sessions.filter((s) => s.portal === portal).map((s) => s.sid);
      r = refreshAndCompare(host, prev, { sids: onPortal, structural: false });
      expect(r.incremental).toBe(true);
      expect(r.snapshot.sessions.filter((s) => s.portal === portal).every((s) => s.state === 'FAILED')).toBe(
        true,
      );
      prev = r.snapshot;

      // recovery_tmo expires for every FAILED session (the incident has one from before): FREE,
      // devices transport-offline. Naming only this portal's sessions would leave those stale.
      host.sim.advance(10 * 60_000);
      const failed = prev.sessions.filter((s) => s.state !== 'LOGGED_IN').map((s) => s.sid);
      r = refreshAndCompare(host, prev, { sids: failed, structural: false });
      expect(r.incremental).toBe(true);
      prev = r.snapshot;

      host.sim.portalUp(portal);
      r = refreshAndCompare(host, prev, { sids: onPortal, structural: false });
      expect(r.incremental).toBe(true);
    });
  }

  it('a multipath slave failing updates the map (failedSlaves) and health', async () => {
    const host = await open('healthy');
    const prev = takeSnapshot(host, OPTS);
    const sd = someDisk(prev, true);
    host.sim.pathFail(sd);
    const r = refreshAndCompare(host, prev, { sids: [sessionOf(prev, sd)], structural: false });
    expect(r.incremental).toBe(true);
    expect(r.snapshot.multipath.some((m) => m.failedSlaves.includes(sd))).toBe(true);
  });

  it('reads far fewer files than the full read', async () => {
    const host = await open('healthy');
    const prev = takeSnapshot(host, OPTS);
    const sd = someDisk(prev, false);
    host.sim.deviceOffline(sd);
    const full = recordingHost(host);
    takeSnapshot(full.host, OPTS);
    const inc = recordingHost(host);
    const r = refreshSnapshot(inc.host, OPTS, prev, { sids: [sessionOf(prev, sd)], structural: false });
    expect(r.incremental).toBe(true);
    const sessionDirReads = (reads: { path: string }[]) =>
      reads.filter((x) => /\/session\d+\//.test(x.path)).length;
    expect(sessionDirReads(inc.reads)).toBeLessThan(sessionDirReads(full.reads) / 2);
  });

  it('mount, swap and partition changes with no session named', async () => {
    const host = await open('incident');
    let prev = takeSnapshot(host, OPTS);
    const sd = someDisk(prev, false);
    // A partition table written on a disk: no sysfs state moves, only the disk's dir gains sdX1.
    host.sim.partition(sd, 2);
    let r = refreshAndCompare(host, prev, { sids: [], structural: false });
    expect(r.incremental).toBe(true);
    expect(r.snapshot.sessions.flatMap((s) => s.devices).find((d) => d.name === sd)?.partitions).toEqual([
      `${sd}1`,
      `${sd}2`,
    ]);
    prev = r.snapshot;

    host.sim.swapOn(`/dev/${sd}2`);
    r = refreshAndCompare(host, prev, { sids: [], structural: false });
    expect(r.incremental).toBe(true);
    expect(r.snapshot.sessions.find((s) => s.sid === sessionOf(prev, sd))?.verdict).toBe('foreign');
  });

  it('falls back to the full read on structural changes, and still matches', async () => {
    const host = await open('healthy');
    const prev = takeSnapshot(host, OPTS);
    const s = prev.sessions[0]!;
    const logout = await host.run(['iscsiadm', '-m', 'node', '-T', s.targetIqn, '-p', s.portal, '--logout']);
    expect(logout.exitCode).toBe(0);
    // Even if the caller wrongly says "not structural", the session listing gives it away.
    const r = refreshAndCompare(host, prev, { sids: [], structural: false });
    expect(r.incremental).toBe(false);
    expect(r.fallback).toBe('sessions added or removed');

    const login = await host.run(['iscsiadm', '-m', 'node', '-T', s.targetIqn, '-p', s.portal, '--login']);
    expect(login.exitCode).toBe(0);
    const r2 = refreshAndCompare(host, r.snapshot, { sids: [], structural: true });
    expect(r2.incremental).toBe(false);
  });

  it('a snapshot not read by this engine (a copy) gets the full read', async () => {
    const host = await open('healthy');
    const copy = structuredClone(takeSnapshot(host, OPTS));
    const r = refreshAndCompare(host, copy, { sids: [], structural: false });
    expect(r.incremental).toBe(false);
  });
});
