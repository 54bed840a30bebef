/**
 * restore through the simulator: kubelet attached a two-portal volume while one portal was down;
 * restore logs the missing portal in with kubelet's own sequence, the device joins the map, the map
 * has two paths. Refused, with nothing changed, when the portal does not answer the probe.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { findAction } from '../../src/engine/actions/registry.js';
import type { ActionContext } from '../../src/engine/actions/types.js';
import { nodeProblems } from '../../src/engine/snapshot/problems.js';
import { degradedVolume, GLOBAL, IQN, P2 } from '../helpers/degraded-volume.js';
import { fakeTime } from '../helpers/fake-time.js';
import type { SimEnv } from './helpers.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

function planFor(e: SimEnv, ctx: ActionContext, ref: string) {
  const def = findAction('restore');
  const s = e.snap();
  return def.plan(def.inputFromCli([ref], {}, s), s, ctx);
}

describe('restore', () => {
  it("plans kubelet's login for the missing portal only: discovery (record missing), scan/startup manual, login, targeted scan, map wait", async () => {
    env = await degradedVolume();
    const plan = planFor(env, env.ctx, 'pv-x');
    expect(plan.refusals).toEqual([]);
    expect(plan.steps.map((s) => s.id)).toEqual([
      'probe-portals',
      `discoverydb-new:${P2}`,
      `discover:${P2}`,
      `scan-manual:${P2}`,
      `login:${P2}`,
      `startup-manual:${P2}`,
      `scan-lun:${P2}`,
      `wait-device:${P2}`,
      'wait-map:pv-x',
    ]);
    expect(plan.steps.find((s) => s.id === `login:${P2}`)?.argv).toEqual([
      'iscsiadm',
      '-m',
      'node',
      '-p',
      P2,
      '-T',
      IQN,
      '-I',
      'default',
      '--login',
    ]);
    expect(plan.expect).toContainEqual(
      expect.objectContaining({ id: 'volume-paths', subject: GLOBAL, value: '2' }),
    );
  });

  it('logs the portal in, the device joins the map, the map has 2 paths; the problem is gone', async () => {
    env = await degradedVolume();
    const ctx = env.ctx;
    const plan = planFor(env, ctx, IQN);
    const result = await applyPlan(plan, ctx, { ...fakeTime() });
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    const snap = env.snap();
    const v = snap.expected?.volumes.find((x) => x.path === GLOBAL);
    expect(v?.missingPortals).toEqual([]);
    expect(v?.paths).toBe(2);
    const map = snap.multipath.find((m) => m.name === v?.expectedLuns[0]?.device);
    expect(map?.slaves).toHaveLength(2);
    expect(nodeProblems(snap).expected.size).toBe(0);
    // kubelet's records: node.startup and node.session.scan manual on the new record.
    const rec = snap.nodeRecords.find((r) => r.portal === P2 && r.targetIqn === IQN);
    expect(rec).toMatchObject({ startup: 'manual', scan: 'manual' });
  });

  it('refused when the portal does not answer the probe, and nothing changed', async () => {
    env = await degradedVolume({ keepDown: true });
    const ctx = env.ctx;
    const before = env.snap();
    const result = await applyPlan(planFor(env, ctx, 'pv-x'), ctx, { ...fakeTime() });
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe('refused');
    expect(result.error?.message).toMatch(`portal ${P2} did not answer the probe: nothing was changed`);
    expect(result.error?.message).toMatch(/connection refused \(probed \d\d:\d\d:\d\d\)/);
    const after = env.snap();
    expect(after.sessions.map((s) => s.key)).toEqual(before.sessions.map((s) => s.key));
    expect(after.nodeRecords.map((r) => r.path)).toEqual(before.nodeRecords.map((r) => r.path));
  });

  it('refused at its probe step where no probe exists (fails closed)', async () => {
    env = await degradedVolume();
    const { prober: _, ...noProbe } = env.ctx;
    const result = await applyPlan(planFor(env, noProbe, 'pv-x'), noProbe, { ...fakeTime() });
    expect(result.error?.kind).toBe('refused');
    expect(result.error?.message).toMatch(/no reachability probe here/);
  });

  it('refused before consent when the last probe found the portal silent', async () => {
    env = await degradedVolume({ keepDown: true });
    await env.ctx.prober!.probe([P2]);
    const plan = planFor(env, env.ctx, 'pv-x');
    expect(plan.refusals.find((r) => r.id === 'portal-silent')?.reason).toMatch(
      new RegExp(`^portal ${P2} does not answer: .*\\(probed \\d\\d:\\d\\d:\\d\\d\\)$`),
    );
  });

  it('refused before consent when every expected portal has a session; a missing LUN points at scan', async () => {
    env = await degradedVolume();
    const ctx = env.ctx;
    await applyPlan(planFor(env, ctx, 'pv-x'), ctx, { ...fakeTime() });
    const again = planFor(env, ctx, 'pv-x');
    expect(again.refusals.map((r) => r.id)).toContain('nothing-missing');
  });

  it("refused when the volume's one path is in use without a map: the new path could not join one", async () => {
    env = await degradedVolume({ pod: true });
    const plan = planFor(env, env.ctx, 'pv-x');
    const r = plan.refusals.find((x) => x.id === 'in-use-without-map');
    expect(r?.overridable).toBe(false);
    expect(r?.reason).toMatch(
      /^pv-x's LUN 1 runs on sda directly, with no multipath map, and sda is in use \(sda is bind-mounted/,
    );
  });

  it('an unknown name is a clear error', async () => {
    env = await degradedVolume();
    expect(() => planFor(env!, env!.ctx, 'pv-nope')).toThrow(/no volume or target named pv-nope/);
  });
});
