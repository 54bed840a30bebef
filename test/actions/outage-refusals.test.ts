/**
 * Cleanup of a session that is down: refused (overridable) whether its whole portal is down or only
 * it, and the reason says which (docs/status-schema.md#outages). Simulator, incident scenario:
 * sessions 1, 2 and 4 (stale) go through 10.0.0.10:3260; session 7 is alone on 10.0.0.12:3260, FAILED.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { type SimEnv, simEnv } from './helpers.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const refusal = (plan: { refusals: { id: string }[] }, id: string) => plan.refusals.find((r) => r.id === id);

describe('cleanup of a session that is down', () => {
  it('whole portal down: one outage refusal naming the portal and its sessions, overridable', async () => {
    env = await simEnv('incident');
    env.host.sim.portalDown('10.0.0.10:3260');
    const plan = env.plan('cleanup', ['4']);
    expect(plan.refusals.map((r) => r.id)).toEqual(['outage']);
    expect(refusal(plan, 'outage')).toMatchObject({
      reason:
        'portal 10.0.0.10:3260 down: 3 sessions FAILED: the whole portal is down, this looks like a portal outage, not stale state',
      overridable: true,
    });
    expect((await applyPlan(plan, env.ctx)).error?.kind).toBe('refused');
    expect(env.snap().sessions.some((x) => x.sid === 4)).toBe(true);
  });

  it('only this session down (the portal has others up): refused too, saying only this session is down', async () => {
    env = await simEnv('incident');
    const k = env.host.sim.kernel;
    k.failSession([...k.sessions.values()].find((s) => s.sid === 4)!);
    const plan = env.plan('cleanup', ['4']);
    expect(plan.refusals.map((r) => r.id)).toEqual(['session-down']);
    expect(refusal(plan, 'session-down')).toMatchObject({
      reason:
        'session 4 down (FAILED) while 2 other sessions to portal 10.0.0.10:3260 are up: only this session is down, not the whole portal',
      overridable: true,
    });
    expect((await applyPlan(plan, env.ctx)).error?.kind).toBe('refused');
    expect(env.snap().sessions.some((x) => x.sid === 4)).toBe(true);
  });

  it('a session alone on its portal is a whole-portal outage (session 7, in use as well)', async () => {
    env = await simEnv('incident');
    const plan = env.plan('cleanup', ['7']);
    expect(plan.refusals.map((r) => r.id)).toEqual(expect.arrayContaining(['in-use', 'outage']));
    expect(refusal(plan, 'outage')).toMatchObject({
      reason: expect.stringMatching(
        /^portal 10\.0\.0\.12:3260 down: 1 session FAILED: the whole portal is down/,
      ),
    });
  });

  it('a healthy stale session is not refused for being down', async () => {
    env = await simEnv('incident');
    expect(env.plan('cleanup', ['4']).refusals).toEqual([]);
  });
});
