/**
 * The app's plan runner on the simulator (`--demo healthy`): the engine's applyPlan runs the plan,
 * the run is tracked in the node store's `actions` step by step (the one progress stream the
 * console reads), and the node is re-read exactly once, when the run has ended.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlanRunner } from '../../src/app/run-plan.js';
import { combinePlans } from '../../src/engine/actions/combine.js';
import { actionContext } from '../../src/engine/actions/context.js';
import { findAction } from '../../src/engine/actions/registry.js';
import type { StepProgress } from '../../src/engine/actions/types.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { createNodeStore } from '../../src/watchers/store.js';

const dir = mkdtempSync(join(tmpdir(), 'ic-run-plan-'));
let host: SimHost;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual', dir }));
}, 60_000);
afterAll(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('createPlanRunner', () => {
  it('tracks every step in the store and re-reads the node once, at the end', async () => {
    const store = createNodeStore({ now: () => host.now() });
    const refreshes: string[] = [];
    const seen: { id: string; steps: StepProgress['status'][] }[] = [];
    store.subscribe((s) => {
      const a = s.actions.at(-1);
      if (a) seen.push({ id: a.id, steps: a.steps.map((x) => x.status) });
    });
    const run = createPlanRunner({
      store,
      now: () => host.now(),
      refresh: async (reason) => {
        refreshes.push(reason);
      },
    });
    const ctx = actionContext({
      host,
      kubeletRoot: '/var/lib/kubelet',
      stateDir: '/var/log/iscsi-console',
      write: true,
    });
    const snap = takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' });
    const def = findAction('rescan');
    const plans = snap.sessions
      .slice(0, 2)
      .map((s) => def.plan(def.inputFromSelection!({ scope: 'session', key: s.key }, snap), snap, ctx));
    const plan = combinePlans(plans, host.hostname());
    expect(plan.steps.length).toBeGreaterThanOrEqual(2);

    let started: string | undefined;
    const progress: StepProgress[] = [];
    const result = await run(plan, ctx, {
      onStart: (id) => {
        started = id;
        // Tracked before the first step runs.
        expect(store.getState().actions).toEqual([]);
        store.flush();
        expect(store.getState().actions.map((a) => a.id)).toEqual([id]);
      },
      onProgress: (p) => progress.push(p),
    });

    expect(result.ok).toBe(true);
    expect(refreshes).toEqual(['action finished']);
    const tracked = store.getState().actions;
    expect(tracked).toHaveLength(1);
    expect(tracked[0]!.id).toBe(started);
    expect(tracked[0]!.result).toBe(result);
    expect(tracked[0]!.steps.map((s) => s.status)).toEqual(plan.steps.map(() => 'done'));
    // The caller's own progress callback still hears every step.
    expect(progress.filter((p) => p.status === 'done').map((p) => p.stepId)).toEqual(
      plan.steps.map((s) => s.id),
    );
    expect(seen.every((x) => x.id === started)).toBe(true);
    expect(store.getState().events.map((e) => e.message)).toEqual([
      `${plan.title}: started`,
      `${plan.title}: done`,
    ]);
    expect(store.getState().busy).toBe(0);
  }, 60_000);
});
