/**
 * Stuck told from outage through the real read, problems rule and cleanup planner, on `--demo
 * degraded` (the simulator behind the Host seam): without a probe a down portal is an outage; with
 * one that answers, its down session is stuck — the problem says so, the summary line counts it,
 * cleanup needs no override and its logout carries the executor's re-check; a portal gone silent
 * is an outage again, worded with the probe's time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { check } from '../../src/engine/actions/conditions.js';
import { actionContext } from '../../src/engine/actions/context.js';
import { findAction } from '../../src/engine/actions/registry.js';
import { probedSnapshot } from '../../src/engine/probe/probed-snapshot.js';
import { nodeProblems } from '../../src/engine/snapshot/problems.js';
import { stuckRecoveries } from '../../src/engine/snapshot/stuck.js';
import { KUBELET_ROOT, type SimEnv, STATE_DIR, simEnv } from '../actions/helpers.js';

const SCRATCH = 'iqn.2026-01.lab.example:scratch';
const PORTAL_C = '10.0.0.12:3260';
let e: SimEnv;
afterEach(async () => e?.close());

describe('a session stuck while its portal answers (--demo degraded)', () => {
  it('without a probe it is an outage; nothing is sent', async () => {
    e = await simEnv('degraded', false);
    const s = e.snap();
    expect(s.outages.map((o) => o.portal)).toEqual([PORTAL_C]);
    expect(s.stuck).toBeUndefined();
    expect(e.ctx.prober).toBeUndefined();
  });

  it('with a probe that answers: stuck, not outage, in the problem and the summary line', async () => {
    e = await simEnv('degraded', true);
    const s = await probedSnapshot(e.ctx, e.ctx.takeSnapshot());
    expect(s.outages).toEqual([]);
    const sid = s.sessions.find((x) => x.targetIqn === SCRATCH)!.sid;
    expect(s.stuck).toMatchObject([{ portal: PORTAL_C, sessions: [sid] }]);
    expect(s.stuck![0]!.summary).toMatch(
      /^portal 10\.0\.0\.12:3260 answers; 1 session stuck \(probed \d\d:\d\d:\d\d UTC\)$/,
    );
    const p = nodeProblems(s);
    const key = s.sessions.find((x) => x.sid === sid)!.key;
    expect(p.sessions.get(key)!.reasons[0]).toBe(`session ${sid} FAILED while its portal answers`);
    expect(p.summary).toContain('1 session stuck (portal 10.0.0.12:3260 answers)');
    expect(p.summary).not.toContain('down');
  });

  it('says how long, from the first sighting down to the probe', async () => {
    e = await simEnv('degraded', true);
    const first = e.ctx.takeSnapshot();
    const down = first.sessions.find((x) => x.targetIqn === SCRATCH)!;
    e.host.sim.advance(14 * 60_000);
    const s = await probedSnapshot(e.ctx, e.ctx.takeSnapshot());
    const x = s.sessions.find((y) => y.key === down.key)!;
    x.downSeenAt = down.downSeenAt; // what the watcher's carryDownTimes keeps across reads
    // Past recovery_tmo (120 s) the kernel fails I/O: what the pods feel comes first, then the stuck time.
    expect(nodeProblems(s).sessions.get(x.key)!.reasons.slice(0, 2)).toEqual([
      'recovery_tmo expired: the kernel fails I/O',
      `session ${x.sid} FREE for 14 min while its portal answers`,
    ]);
  });

  it('cleanup of the unused stuck session needs no override, and says why', async () => {
    e = await simEnv('degraded', true);
    const s = await probedSnapshot(e.ctx, e.ctx.takeSnapshot());
    const x = s.sessions.find((y) => y.targetIqn === SCRATCH)!;
    const def = findAction('cleanup');
    const plan = def.plan(def.inputFromCli([String(x.sid)], {}, s), s, e.ctx);
    expect(plan.refusals.map((r) => r.id)).not.toContain('session-down');
    expect(plan.refusals.map((r) => r.id)).not.toContain('outage');
    expect(plan.warnings.join('\n')).toContain(
      `session ${x.sid} is FAILED while its portal ${PORTAL_C} answers`,
    );
    const logout = plan.steps.find((st) => st.effect.kind === 'logout')!;
    const guard = logout.preconditions.find((c) => c.id === 'session-not-outage')!;
    expect(check(guard, s, e.host).ok).toBe(true);
    // The portal goes silent before the step: the executor's re-check fails on the fresh read.
    e.host.sim.portalDown(PORTAL_C);
    // A new context: the old prober would answer from within its interval.
    const ctx2 = actionContext({ host: e.host, kubeletRoot: KUBELET_ROOT, stateDir: STATE_DIR, write: true });
    const fresh = await probedSnapshot(ctx2, ctx2.takeSnapshot());
    expect(fresh.outages[0]!.summary).toMatch(
      /portal does not answer \(probed \d\d:\d\d:\d\d UTC: connection refused\)$/,
    );
    expect(check(guard, fresh, e.host)).toMatchObject({ ok: false });
  });
});

describe('what an admin would consider for a stuck session', () => {
  it('in use: no repair offered, each recovery with its risk; higher without another path', () => {
    const single = stuckRecoveries({ inUse: true, otherPathsUp: false });
    expect(single.map((r) => [r.what.split(' ')[0], r.risk])).toEqual([
      ['wait', 'low'],
      ['restart', 'medium'],
      ['echo', 'high'],
      ['logout', 'high'],
    ]);
    expect(
      stuckRecoveries({ inUse: true, otherPathsUp: true }).find((r) => r.what.startsWith('echo'))?.risk,
    ).toBe('medium');
    expect(single.some((r) => r.what.startsWith('cleanup'))).toBe(false);
  });

  it('not in use: cleanup, without the override', () => {
    expect(stuckRecoveries({ inUse: false, otherPathsUp: false })).toMatchObject([
      { what: 'cleanup (no override needed: the portal answers)', risk: 'low' },
    ]);
  });
});
