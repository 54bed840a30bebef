/**
 * The one rule for "problems" (src/engine/snapshot/problems.ts) on the simulator's incident node:
 * every session, volume, target and device gets a severity and a one-line reason, volumes never read
 * ✓ while their session is failed or their dir is orphaned, the Targets view agrees with the
 * Volumes view about which sessions kubelet knows, and the summary line names what is wrong.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  csiVolumePath,
  inKubelet,
  nodeProblems,
  type Problem,
  problemContext,
  problemSortKey,
  sessionProblem,
  severityRank,
  targetProblem,
} from '../../src/engine/snapshot/problems.js';
import { sortRows } from '../../src/ui/sort-rows.js';
import { sessionRows } from '../../src/ui/views/sessions.js';
import { targetRows } from '../../src/ui/views/targets.js';
import { volumeRows } from '../../src/ui/views/volumes.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';

describe('problems of the incident node', () => {
  const incident = simSnapshot('incident');
  let snap = undefined as unknown as ReturnType<typeof incident>;
  beforeEach(() => {
    snap = incident();
  });
  const bySid = (sid: number) => snap.sessions.find((s) => s.sid === sid)!;
  const sessionP = (sid: number) => nodeProblems(snap).sessions.get(bySid(sid).key)!;
  const volumeP = (name: string) => {
    const v = snap.kubelet.volumes.find((x) => x.path.includes(name))!;
    return nodeProblems(snap).volumes.get(v.path)!;
  };

  it('sessions: severity from health, then the verdict; reasons short enough for a cell', () => {
    expect(sessionP(1)).toMatchObject({ severity: 'ok', reason: '' });
    expect(sessionP(2)).toMatchObject({ severity: 'degraded', reason: 'map mpatha lost path sdc' });
    expect(sessionP(3)).toMatchObject({ severity: 'failed', reason: 'sdc transport-offline' });
    expect(sessionP(4)).toMatchObject({ severity: 'stale', reason: 'no kubelet volume' });
    expect(sessionP(5)).toMatchObject({ severity: 'orphaned', reason: 'kubelet dir, no pod or mount' });
    expect(sessionP(6).severity).toBe('ok'); // foreign: used outside kubelet, nothing wrong
    // The outage explains the rest, so it comes first.
    expect(sessionP(7)).toMatchObject({
      severity: 'failed',
      reasons: ['portal 10.0.0.12:3260 down', 'session FAILED', 'sdg blocked'],
    });
    expect(sessionP(7).since).toBe(bySid(7).downSeenAt);
  });

  it('volumes: a failed session, a lost path and an orphaned dir are problems, never ✓', () => {
    expect(volumeP('metrics-tsdb')).toMatchObject({ severity: 'failed' });
    expect(volumeP('metrics-tsdb').reason).toContain('sdg blocked');
    // Multipath: one path still serves I/O, so the volume is degraded, naming both sessions.
    expect(volumeP('kafka-data')).toMatchObject({
      severity: 'degraded',
      reasons: ['sid 2: map mpatha lost path sdc', 'sid 3: sdc transport-offline'],
    });
    expect(volumeP('grafana-data').severity).toBe('orphaned');
    expect(volumeP('postgres-data').severity).toBe('ok');
  });

  it('targets agree with volumes: a session a kubelet volume lists is in kubelet, whatever portal the dir names', () => {
    const kafka = snap.kubelet.volumes.find((v) => v.path.includes('kafka-data'))!;
    expect(kafka.sessions.sort()).toEqual([2, 3]);
    expect(inKubelet(bySid(3))).toBe(true);
    const rows = targetRows(snap);
    const kafka11 = rows.find((r) => r.key === 'iqn.2026-01.lab.example:kafka-data|10.0.0.11:3260')!;
    expect(kafka11.fields.flags).not.toContain('not in kubelet');
    // The Volumes view lists the same sids.
    const vrow = volumeRows(snap).find((r) => r.key === kafka.path)!;
    expect(vrow.cells[5]).toBe('2,3');
    // A session nothing in kubelet knows still says so.
    const backup = rows.find((r) => r.key.startsWith('iqn.2026-01.lab.example:nightly-backup|'))!;
    expect(backup.fields.flags).toContain('not in kubelet');
    const ctx = problemContext(snap);
    expect(targetProblem([bySid(6)], ctx).reason).toBe('not in kubelet');
    expect(targetProblem([bySid(3)], ctx)).toMatchObject({
      severity: 'failed',
      reason: 'sdc transport-offline',
    });
    expect(targetProblem([bySid(2), bySid(3)], ctx).severity).toBe('failed');
  });

  it('devices and maps: not running is failed unless a map still has another path (then degraded, as its session)', () => {
    const p = nodeProblems(snap);
    const sdc = bySid(3).devices.find((d) => d.name === 'sdc')!;
    // sdc is one path of mpatha, whose other path (session 2) runs: the LUN's I/O goes on. Session 3
    // itself carries no I/O (its only device is down), so it stays failed: a row is never worse than its parent.
    expect(p.devices.get(sdc.key)).toMatchObject({ severity: 'degraded', reason: 'sdc transport-offline' });
    expect(p.sessions.get(bySid(3).key)!.severity).toBe('failed');
    const sdg = bySid(7).devices.find((d) => d.name === 'sdg')!;
    expect(p.devices.get(sdg.key)).toMatchObject({
      severity: 'failed',
      reason: 'sdg blocked; session 7 FAILED',
    });
    const sda = bySid(1).devices[0]!;
    expect(p.devices.get(sda.key)!.severity).toBe('ok');
    const mpatha = snap.multipath.find((m) => m.alias === 'mpatha')!;
    expect(p.maps.get(mpatha.name)).toMatchObject({
      severity: 'degraded',
      reason: 'map mpatha lost path sdc',
    });
  });

  it('the summary line counts sessions worst first and names the dead portal', () => {
    expect(nodeProblems(snap).summary).toBe(
      '2 failed · 1 degraded · 1 stale · 1 orphaned · portal 10.0.0.12:3260 down',
    );
    expect(nodeProblems(snap).worst).toBe('failed');
    expect(nodeProblems(snap)).toBe(nodeProblems(snap)); // computed once per snapshot
  });

  it('sorts problems first: severity, then the oldest; health words sort by severity', () => {
    const ctx = problemContext(snap);
    const order = [...snap.sessions]
      .sort(
        (a, b) =>
          problemSortKey(sessionProblem(a, ctx)) - problemSortKey(sessionProblem(b, ctx)) || a.sid - b.sid,
      )
      .map((s) => s.sid);
    expect(order.slice(0, 2).sort()).toEqual([3, 7]);
    expect(order.slice(2)).toEqual([2, 4, 5, 1, 6]);
    const at = (since: string): Problem => ({ severity: 'failed', reasons: ['x'], reason: 'x', since });
    expect(problemSortKey(at('2026-01-01T00:00:00Z'))).toBeLessThan(
      problemSortKey(at('2026-01-02T00:00:00Z')),
    );
    expect(problemSortKey(at('2026-01-02T00:00:00Z'))).toBeLessThan(
      problemSortKey({ severity: 'failed', reasons: ['x'], reason: 'x' }),
    );
    expect(severityRank('failed')).toBeGreaterThan(severityRank('degraded'));
    expect(severityRank('degraded')).toBeGreaterThan(severityRank('ok'));
  });
});

describe('problems of a healthy node', () => {
  const healthy = simSnapshot('healthy');
  it('says all is well', () => {
    const s = healthy();
    const p = nodeProblems(s);
    expect(p.worst).toBe('ok');
    expect(p.summary).toBe(`all ${s.sessions.length} sessions ok`);
  });
});

describe('problems of CSI volumes', () => {
  const csi = simSnapshot('csi');
  it('agree with their sessions: an unmounted volume a driver still claims is no problem', () => {
    const s = csi();
    const p = nodeProblems(s);
    const vols = s.csi?.volumes ?? [];
    expect(vols.length).toBeGreaterThan(0);
    for (const v of vols) {
      const vp0 = p.csiVolumes.get(csiVolumePath(v))!;
      const used = v.stagingMounted || v.publish.some((x) => x.mounted);
      if (v.sessions.length === 0 && !used) {
        // kubelet's leftover dirs with no session and no mount (--demo csi's pv-csi-gone): a
        // leftover to clean up, not a claim.
        expect(vp0.severity, csiVolumePath(v)).toBe('orphaned');
        continue;
      }
      const worst = Math.max(
        0,
        ...v.sessions.map((sid) =>
          severityRank(p.sessions.get(s.sessions.find((x) => x.sid === sid)!.key)!.severity),
        ),
      );
      const vp = p.csiVolumes.get(csiVolumePath(v))!;
      expect(severityRank(vp.severity), csiVolumePath(v)).toBeLessThanOrEqual(
        Math.max(worst, v.problems.length ? 1 : 0),
      );
    }
    const claimed = s.sessions.filter((x) => x.verdict === 'claimed');
    expect(claimed.length).toBeGreaterThan(0);
    for (const x of claimed) expect(p.sessions.get(x.key)!.severity).toBe('ok');
    expect(p.summary).toMatch(/^\d+ stale$/);
  });
});

describe('the HEALTH column sorts by severity', () => {
  const incident = simSnapshot('incident');
  it('ascending puts failed first, then degraded, then ok', () => {
    const rows = sortRows(sessionRows(incident().sessions), { column: 'health', desc: false });
    const health = rows.map((r) => r.fields.health);
    expect(health.indexOf('failed')).toBe(0);
    expect(health.lastIndexOf('failed')).toBeLessThan(health.indexOf('degraded'));
    expect(health.indexOf('degraded')).toBeLessThan(health.indexOf('ok'));
  });
});
