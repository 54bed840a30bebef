/**
 * The snapshot's outage finding on the simulator's kernel (manual clock): a portal whose sessions
 * all go down is one finding with the kernel's states, through FAILED/blocked and, after
 * replacement_timeout, FREE/transport-offline; one session down on a live portal is not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/commands/status-text.js';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import {
  carryDownTimes,
  downScopeOf,
  findOutages,
  isSessionDown,
} from '../../src/engine/snapshot/outages.js';
import { describeRecovery, recoveryClock } from '../../src/engine/snapshot/recovery.js';
import { iscsiadm, labSim, T1, T2, type TestSim } from '../sim/helpers.js';

const P = '127.0.0.1:3260';
let t: TestSim | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

const snap = (): Snapshot => takeSnapshot(t!.host, { kubeletRoot: '/var/lib/kubelet' });
const plain = (text: string) => text;

/** Both lab targets logged in through 127.0.0.1:3260 (two sessions on one portal). */
async function twoSessions(): Promise<TestSim> {
  t = labSim();
  await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', P);
  await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
  await iscsiadm(t.host, '-m', 'node', '-T', T2, '--login');
  return t;
}

describe('portal outage finding', () => {
  it('a healthy node has none, and nothing is down', async () => {
    await twoSessions();
    const s = snap();
    expect(s.outages).toEqual([]);
    expect(s.sessions.every((x) => !isSessionDown(x) && x.downSeenAt === undefined)).toBe(true);
  });

  it('portal down: one finding with both sessions and the kernel states; the unused sessions read outage, not stale', async () => {
    await twoSessions();
    t!.sim.portalDown(P);
    const s = snap();
    expect(s.outages).toEqual([
      {
        portal: P,
        sessions: [1, 2],
        sessionStates: { FAILED: 2 },
        connectionStates: { failed: 2 },
        // target1: LUN 0 controller + 2 disks; target2: LUN 0 + 1 disk; all blocked
        deviceStates: { blocked: 5 },
        firstSeenAt: s.takenAt,
        summary: `portal ${P} down: 2 sessions FAILED`,
      },
    ]);
    for (const x of s.sessions) {
      expect(x.verdict).toBe('outage');
      expect(x.health).toBe('failed');
      expect(x.reasons[0]).toBe(`portal ${P} down: 2 sessions FAILED`);
      expect(x.reasons[1]).toMatch(/it would be stale.*portal is down/);
      expect(x.downSeenAt).toBe(s.takenAt);
    }
  });

  it('after replacement_timeout the kernel shows FREE and transport-offline, and the finding says so', async () => {
    await twoSessions();
    t!.sim.portalDown(P);
    t!.sim.advance(120_000);
    const [o] = snap().outages;
    expect(o?.sessionStates).toEqual({ FREE: 2 });
    expect(o?.deviceStates).toEqual({ 'transport-offline': 5 });
    expect(o?.summary).toBe(`portal ${P} down: 2 sessions FREE; recovery_tmo expired: the kernel fails I/O`);
    expect(o?.expired).toEqual([1, 2]);
  });

  it('the portal back: no finding, the sessions are plain stale again', async () => {
    await twoSessions();
    t!.sim.portalDown(P);
    t!.sim.portalUp(P);
    const s = snap();
    expect(s.outages).toEqual([]);
    expect(s.sessions.map((x) => x.verdict)).toEqual(['stale', 'stale']);
  });

  it('one session down while the portal has another up: no outage, the session is down on its own', async () => {
    await twoSessions();
    t!.sim.kernel.failSession(t!.sim.kernel.sessions.get(1)!);
    const s = snap();
    expect(s.outages).toEqual([]);
    const [s1, s2] = s.sessions;
    expect(s1!.verdict).toBe('stale');
    expect(downScopeOf(s, s1!)).toEqual({
      scope: 'session',
      sessionsUp: 1,
      summary: `session 1 down (FAILED) while 1 other session to portal ${P} is up`,
    });
    expect(downScopeOf(s, s2!)).toBeUndefined();
  });

  it('a LOGGED_IN session whose connection is down counts as down', () => {
    const base = { state: 'LOGGED_IN', connections: [{ name: 'connection1:0', state: 'down' }] };
    expect(isSessionDown(base)).toBe(true);
    expect(isSessionDown({ ...base, connections: [{ name: 'connection1:0', state: 'up' }] })).toBe(false);
    expect(isSessionDown({ ...base, connections: [{ name: 'connection1:0', state: 'bound' }] })).toBe(false);
  });

  it('sessions with no readable portal are never grouped into an outage', async () => {
    await twoSessions();
    t!.sim.portalDown(P);
    const raw = snap().sessions.map((x) => ({ ...x, portal: '' }));
    expect(findOutages(raw, '2026-01-01T00:00:00.000Z')).toEqual([]);
  });
});

describe('since when: the first read that saw it (the kernel keeps no failure time)', () => {
  it('carryDownTimes keeps the first sighting of the outage and of each down session across reads', async () => {
    await twoSessions();
    t!.sim.portalDown(P);
    const first = snap();
    t!.sim.advance(30_000);
    const second = snap();
    expect(second.takenAt > first.takenAt).toBe(true);
    carryDownTimes(first, second);
    expect(second.outages[0]!.firstSeenAt).toBe(first.takenAt);
    expect(second.sessions.map((x) => x.downSeenAt)).toEqual([first.takenAt, first.takenAt]);
    // Back up and down again: a new outage, a new first sighting.
    t!.sim.portalUp(P);
    const up = snap();
    carryDownTimes(second, up);
    t!.sim.advance(1_000);
    t!.sim.portalDown(P);
    const again = snap();
    carryDownTimes(up, again);
    expect(again.outages[0]!.firstSeenAt).toBe(again.takenAt);
  });

  it('the recovery countdown runs from that sighting: at most recovery_tmo minus the time seen down', async () => {
    await twoSessions();
    t!.sim.portalDown(P);
    const s = snap();
    const s1 = s.sessions[0]!;
    const seen = Date.parse(s1.downSeenAt!);
    expect(recoveryClock(s1, seen + 33_000)).toEqual({
      kind: 'counting',
      leftMs: 87_000,
      seenDownMs: 33_000,
      tmoS: 120,
    });
    expect(describeRecovery(recoveryClock(s1, seen + 33_000))).toBe(
      'the kernel fails I/O in at most 87 s (recovery_tmo 120 s, down for at least 33 s: the kernel records no failure time)',
    );
    expect(recoveryClock({ ...s1, recoveryTmo: -1 }, seen).kind).toBe('forever');
    t!.sim.advance(120_000);
    expect(recoveryClock(snap().sessions[0]!, seen + 120_000)).toEqual({ kind: 'expired' });
  });
});

describe('status', () => {
  it('--json carries outages; the text puts an OUTAGES section before the sessions', async () => {
    await twoSessions();
    t!.sim.portalDown(P);
    const s = snap();
    const json = JSON.parse(JSON.stringify(s)) as Snapshot;
    expect(json.outages[0]).toMatchObject({ portal: P, sessions: [1, 2], sessionStates: { FAILED: 2 } });
    const text = formatStatus(s, plain);
    const lines = text.split('\n');
    const at = lines.indexOf('OUTAGES (1)');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe(
      `  ! portal ${P} down: 2 sessions FAILED (sessions 1, 2; connections 2 failed; devices 5 blocked; first seen down just now, at ${s.takenAt.slice(11, 16)} UTC)`,
    );
    expect(at).toBeLessThan(lines.indexOf('SESSIONS (2)'));
    expect(text).toMatch(/^1 +iqn\.2024-01\.lab\.example:storage\.target1 .* outage +failed$/m);
  });

  it('a healthy node prints no OUTAGES section', async () => {
    await twoSessions();
    expect(formatStatus(snap(), plain)).not.toContain('OUTAGES');
  });
});
