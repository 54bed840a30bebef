/**
 * Plans made apart and combined must not leave a multipath map without paths: two one-path
 * deletes of kafka-data's map (each planned alone: "the map keeps its other path") are refused
 * together before consent; with a part that flushes the map they are ordered flush-first; and the
 * console's selections of both paths are one delete-device plan. Real planners on the simulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { combinePlans } from '../../src/engine/actions/combine.js';
import { planSelections } from '../../src/engine/actions/plan-selections.js';
import { findAction } from '../../src/engine/actions/registry.js';
import type { MultipathMap, Snapshot } from '../../src/engine/model.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv } from './helpers.js';

const KAFKA = 'iqn.2026-01.lab.example:kafka-data';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** incident with kafka-data's pod gone and its sessions left (both paths of its map unused). */
async function staleKafka(): Promise<{ e: SimEnv; s: Snapshot; map: MultipathMap }> {
  const e = await simEnv('incident');
  const v = e.snap().kubelet.volumes.find((x) => x.iqn === KAFKA)!;
  await e.host.sim.kubelet.detachLeavingSession(v.path);
  const s = e.snap();
  const sds = s.sessions.filter((x) => x.targetIqn === KAFKA).flatMap((x) => x.devices.map((d) => d.name));
  const map = s.multipath.find((m) => m.slaves.length === 2 && m.slaves.every((x) => sds.includes(x)))!;
  expect(map).toBeDefined();
  return { e, s, map };
}

const pathless = (e: SimEnv) =>
  e
    .snap()
    .multipath.filter((m) => m.slaves.length === 0)
    .map((m) => m.name);

describe('combined plans keep a map flushed before its last path goes', () => {
  it('two one-path deletes of one map are refused together (not overridable); nothing runs', async () => {
    const { e, s, map } = await staleKafka();
    env = e;
    const [a, b] = map.slaves.map((sd) => e.plan('delete-device', [sd]));
    for (const p of [a!, b!]) expect(p.steps.some((st) => st.argv?.[0] === 'multipath')).toBe(false);
    const c = combinePlans([a!, b!], e.host.hostname(), s);
    const r = c.refusals.find((x) => x.id === 'map-pathless');
    expect(r?.overridable).toBe(false);
    expect(r?.reason).toContain(`${map.alias} (${map.name})`);
    const res = await applyPlan(c, e.ctx, { ...fakeTime(), force: true });
    expect(res.error?.kind).toBe('refused');
    expect(e.snap().multipath.find((m) => m.name === map.name)?.slaves).toHaveLength(2);
  });

  it('with a part that flushes the map, the parts run flush-first and no map is left pathless', async () => {
    const { e, s, map } = await staleKafka();
    env = e;
    const [a, b] = map.slaves.map((sd) => e.plan('delete-device', [sd]));
    const both = e.plan('delete-device', map.slaves);
    const c = combinePlans([a!, b!, both], e.host.hostname(), s);
    expect(c.refusals).toEqual([]);
    expect(c.steps[0]!.argv).toEqual(['multipath', '-f', `/dev/${map.name}`]);
    const res = await applyPlan(c, e.ctx, fakeTime());
    expect(res.error).toBeUndefined();
    expect(pathless(e)).toEqual([]);
    expect(e.snap().multipath.some((m) => m.name === map.name)).toBe(false);
  });

  it("the console's selections of both paths are one delete-device plan that flushes first", async () => {
    const { e, s, map } = await staleKafka();
    env = e;
    const keys = s.sessions.flatMap((x) => x.devices).filter((d) => d.name && map.slaves.includes(d.name));
    const p = planSelections(
      findAction('delete-device'),
      keys.map((d) => ({ scope: 'device' as const, key: d.key })),
      s,
      e.ctx,
    );
    expect(p.parts).toBeUndefined();
    expect(p.steps).toEqual(e.plan('delete-device', map.slaves).steps);
    expect(p.steps[0]!.argv).toEqual(['multipath', '-f', `/dev/${map.name}`]);
    const res = await applyPlan(p, e.ctx, fakeTime());
    expect(res.error).toBeUndefined();
    expect(pathless(e)).toEqual([]);
  });

  it('cleanup of a session and a kubelet dir is combined; sessions of two targets are one cleanup', async () => {
    const { e, s } = await staleKafka();
    env = e;
    const kafka = s.sessions.filter((x) => x.targetIqn === KAFKA);
    const stale = s.sessions.find((x) => x.verdict === 'stale' && x.targetIqn !== KAFKA)!;
    const orphan = s.kubelet.volumes.find((v) => v.pods.length === 0 && !v.mounted)!;
    const def = findAction('cleanup');
    const sessions = planSelections(
      def,
      [...kafka, stale].map((x) => ({ scope: 'session' as const, key: x.key })),
      s,
      e.ctx,
    );
    expect(sessions.parts).toBeUndefined();
    expect(sessions.confirmToken).toBe(e.host.hostname());
    expect(sessions.lockKeys?.sort()).toEqual([KAFKA, stale.targetIqn].sort());
    const mixed = planSelections(
      def,
      [
        { scope: 'session', key: stale.key },
        { scope: 'volume', key: orphan.path },
      ],
      s,
      e.ctx,
    );
    expect(mixed.parts).toHaveLength(2);
  });
});
