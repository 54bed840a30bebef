/**
 * Property: on random simulated nodes (multipath, pods, CSI claims, swap, block volumes with loop
 * devices, stale and orphaned sessions), no step of any plan — from every planner, forced or not,
 * with its planner's refusals and checks removed or kept, combined, and an attach that rolls back —
 * ever leaves the node breaking an invariant. The invariants are checked here on the snapshots
 * themselves (what the node shows after each step), not by the guard's code. Seeded: a failure
 * names its seed and plan.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { combinePlans } from '../../src/engine/actions/combine.js';
import { findAction } from '../../src/engine/actions/registry.js';
import type { Plan } from '../../src/engine/actions/types.js';
import type { Snapshot } from '../../src/engine/model.js';
import { PORTAL_A, PORTAL_B, target, volume } from '../../src/sim/scenarios/lab.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv } from './helpers.js';

/** mulberry32: a tiny seeded generator, so every run of a seed builds the same node and plans. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** Adds random volumes to the node: multipath or not, block or filesystem, in use, stale or orphaned. */
async function randomNode(r: Rand, seed: number): Promise<SimEnv> {
  const e = await simEnv(pick(r, ['empty', 'csi', 'incident'] as const));
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const portals = r() < 0.5 ? [PORTAL_A, PORTAL_B] : [pick(r, [PORTAL_A, PORTAL_B])];
    const t = target(`prop-${seed}-${i}`, portals, r() < 0.5 ? [1] : [1, 2]);
    const v = await volume(e.host.sim, t, `prop-pod-${seed}-${i}`, {
      mode: r() < 0.3 ? 'block' : 'filesystem',
    });
    const fate = r();
    if (fate < 0.3) await e.host.sim.kubelet.detachLeavingSession(v.globalPath);
    else if (fate < 0.45) await e.host.sim.kubelet.crashAfterUnmount(v.globalPath);
  }
  // Swap on a random disk that nothing mounts.
  const free = e
    .snap()
    .sessions.flatMap((x) => x.devices)
    .filter((d) => d.name && d.mountpoints.length === 0 && d.holders.length === 0 && d.loops.length === 0);
  if (free.length > 0 && r() < 0.5) e.host.sim.swapOn(`/dev/${pick(r, free).name}`);
  return e;
}

/** Every plan an admin could ask for on this snapshot (planner, input, whether forced). */
function candidates(s: Snapshot): { id: string; args: string[] }[] {
  const out: { id: string; args: string[] }[] = [];
  for (const x of s.sessions) {
    out.push({ id: 'logout', args: [String(x.sid)] }, { id: 'cleanup', args: [String(x.sid)] });
    out.push({ id: 'logout', args: [x.targetIqn] }, { id: 'rescan', args: [String(x.sid)] });
    for (const d of x.devices) if (d.name) out.push({ id: 'delete-device', args: [d.name] });
  }
  for (const m of s.multipath) out.push({ id: 'flush', args: [m.name] });
  for (const m of s.mounts)
    if (m.mountPoint.startsWith('/var/lib/kubelet') || m.mountPoint.startsWith('/mnt'))
      out.push({ id: 'unmount', args: [m.mountPoint] });
  for (const v of s.kubelet.volumes) out.push({ id: 'cleanup', args: [v.path] });
  for (const rec of s.nodeRecords) out.push({ id: 'forget', args: [`${rec.targetIqn}@${rec.portal}`] });
  return out;
}

/** What the node showed before a plan that must still hold after each of its steps. */
interface Kept {
  podSessions: Map<string, string[]>;
  podMounts: string[];
  busyDevices: string[];
  maps: Set<string>;
  liveRecords: string[];
}

const recordKeyOf = (x: { targetIqn: string; portal: string; iface: string }) =>
  `${x.targetIqn}|${x.portal}|${x.iface}`;

function kept(s: Snapshot): Kept {
  return {
    podSessions: new Map(s.sessions.filter((x) => x.pods.length > 0).map((x) => [x.key, x.pods])),
    podMounts: s.kubelet.podVolumes.filter((v) => v.mounted).map((v) => v.path),
    busyDevices: s.sessions
      .flatMap((x) => x.devices)
      .filter((d) => d.mountpoints.length > 0 || d.swap || (d.blockBinds ?? []).length > 0)
      .map((d) => d.key),
    maps: new Set(s.multipath.filter((m) => m.slaves.length > 0).map((m) => m.wwid)),
    liveRecords: s.nodeRecords
      .filter((r) => s.sessions.some((x) => x.key === recordKeyOf(r)))
      .map(recordKeyOf),
  };
}

/** The breaches of the invariants on `after`, given what held before; `overridden`: objects the admin's override named. */
function breaches(k: Kept, after: Snapshot, overridden: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const m of after.multipath)
    if (m.slaves.length === 0 && k.maps.has(m.wwid)) out.push(`map ${m.alias} was left without paths`);
  for (const [key, pods] of k.podSessions)
    if (!overridden.has(key) && !after.sessions.some((x) => x.key === key))
      out.push(`session ${key} used by pods ${pods.join(', ')} was logged out`);
  // A pod's own volume mount may go only with the admin's override for exactly that path.
  for (const p of k.podMounts)
    if (!overridden.has(p) && !after.kubelet.podVolumes.some((v) => v.path === p && v.mounted))
      out.push(`pod volume ${p} lost its mount or device`);
  const devices = new Set<string>(after.sessions.flatMap((x) => x.devices.map((d) => d.key)));
  for (const d of k.busyDevices) if (!devices.has(d)) out.push(`device ${d} in use was removed`);
  const records = new Set(after.nodeRecords.map(recordKeyOf));
  for (const r of k.liveRecords)
    if (!records.has(r) && after.sessions.some((x) => x.key === r))
      out.push(`record ${r} of a live session was deleted`);
  return out;
}

/** A planner that forgot its refusals and checks (the guard is then the only line). */
function forgetful(plan: Plan): Plan {
  return {
    ...plan,
    refusals: [],
    steps: plan.steps.map((st) => ({ ...st, preconditions: [], doneIf: [] })),
  };
}

async function applyChecked(e: SimEnv, plan: Plan, force: boolean, label: string): Promise<void> {
  const k = kept(e.snap());
  const overridden = new Set(
    force ? plan.refusals.filter((r) => r.overridable).flatMap((r) => r.objects ?? []) : [],
  );
  const found: string[] = [];
  await applyPlan(plan, e.ctx, {
    ...fakeTime(),
    force,
    onProgress: (p) => {
      if (p.status === 'done' || p.status === 'failed')
        for (const b of breaches(k, e.snap(), overridden)) found.push(`${label}, after ${p.stepId}: ${b}`);
    },
  });
  for (const b of breaches(k, e.snap(), overridden)) found.push(`${label}, at the end: ${b}`);
  expect(found).toEqual([]);
}

describe('no applied step ever breaks an invariant', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}`, async () => {
      const r = random(seed);
      env = await randomNode(r, seed);
      const e = env;
      for (let i = 0; i < 4; i++) {
        const all = candidates(e.snap());
        if (all.length === 0) break;
        const c = pick(r, all);
        let plan: Plan;
        try {
          plan = e.plan(c.id, c.args);
        } catch {
          continue; // the input is no longer valid on this node (an object went away)
        }
        const strip = r() < 0.5;
        const force = !strip && r() < 0.5;
        await applyChecked(
          e,
          strip ? forgetful(plan) : plan,
          force,
          `seed ${seed}: ${c.id} ${c.args.join(' ')}${strip ? ' (forgetful)' : ''}${force ? ' --force' : ''}`,
        );
      }
      // Combined: every session of a random target, each planned alone, concatenated.
      const s = e.snap();
      if (s.sessions.length > 0) {
        const iqn = pick(r, s.sessions).targetIqn;
        const parts = s.sessions
          .filter((x) => x.targetIqn === iqn)
          .map((x) => {
            const def = findAction('logout');
            return forgetful(
              def.plan(def.inputFromSelection!({ scope: 'session', key: x.key }, s), s, e.ctx),
            );
          });
        await applyChecked(
          e,
          // Its ordering refusal stripped, like every part's own: the guard is the only line.
          { ...combinePlans(parts, e.host.hostname(), e.snap()), refusals: [] },
          false,
          `seed ${seed}: combined logout of ${iqn}`,
        );
      }
      // Rolled back: an attach of a LUN that does not exist, on a target the node may already use.
      const t = pick(
        r,
        e
          .snap()
          .sessions.map((x) => x.targetIqn)
          .concat(['iqn.2026-01.lab.example:storage.target1']),
      );
      const portal = e.snap().sessions.find((x) => x.targetIqn === t)?.portal ?? '127.0.0.1:3260';
      const attach = e.plan('attach', [], {
        portal: [portal],
        iqn: t,
        lun: '9',
        'volume-name': `pv-r${seed}`,
        'no-mount': true,
      });
      await applyChecked(e, attach, false, `seed ${seed}: attach rolled back`);
    }, 60_000);
  }
});
