/**
 * Applies a plan while the watcher watches: the run is tracked in `store.actions` with live step
 * progress, its start and end are in the timeline, and what each finished step touched is re-read
 * at once, not at the next tick.
 */
import type {
  ActionContext,
  ApplyOptions,
  ApplyResult,
  Plan,
  StepProgress,
} from '../engine/actions/types.js';
import type { Host } from '../engine/host/host.js';
import { actionDone, actionFailed, actionStarted } from './events.js';
import type { Refresher } from './refresher.js';
import type { NodeStore } from './store.js';
import type { TrackedAction } from './types.js';

/** The action engine's shape (engine/actions/apply.ts applyPlan); the runner has the same one. */
export type ApplyPlanFn = (plan: Plan, ctx: ActionContext, options?: ApplyOptions) => Promise<ApplyResult>;

export function createActionRunner(o: {
  host: Host;
  store: NodeStore;
  refresher: Refresher;
  /** The action engine (injectable for unit tests); default: the engine's applyPlan, loaded on first use. */
  applyPlan?: ApplyPlanFn;
}): ApplyPlanFn {
  const { host, store, refresher } = o;
  let seq = 0;
  return async function runAction(plan, ctx, applyOptions = {}) {
    const id = `${plan.action}-${++seq}`;
    let tracked: TrackedAction = {
      id,
      plan,
      steps: plan.steps.map((s) => ({ stepId: s.id, status: 'pending' })),
      startedAt: host.now(),
    };
    const put = (patch: Partial<TrackedAction>) => {
      tracked = { ...tracked, ...patch };
      store.putAction(tracked);
    };
    const upsert = (p: StepProgress) => {
      const i = tracked.steps.findIndex((s) => s.stepId === p.stepId);
      return i < 0 ? [...tracked.steps, p] : tracked.steps.map((s, j) => (j === i ? p : s));
    };
    put({});
    const done = store.beginBusy();
    store.pushEvents([actionStarted(plan)]);
    try {
      // Loaded on first use: `watch` and a read-only console never load the action engine.
      const apply = o.applyPlan ?? (await import('../engine/actions/apply.js')).applyPlan;
      const result = await apply(plan, ctx, {
        ...applyOptions,
        onProgress(p: StepProgress) {
          put({ steps: upsert(p) });
          applyOptions.onProgress?.(p);
          // No re-read per step: applyPlan reads the node itself before each step (preconditions),
          // and the one re-read after the plan (below) publishes the outcome.
        },
      });
      put({ finishedAt: host.now(), result, steps: result.steps.length > 0 ? result.steps : tracked.steps });
      store.pushEvents([
        result.ok ? actionDone(plan) : actionFailed(plan, result.error?.message ?? 'unknown error'),
      ]);
      await refresher.request('action finished');
      return result;
    } catch (e) {
      put({ finishedAt: host.now() });
      store.pushEvents([actionFailed(plan, (e as Error).message)]);
      void refresher.request('action failed');
      throw e;
    } finally {
      done();
    }
  };
}
