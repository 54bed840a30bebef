/**
 * Runs a consented plan for the console: the engine's applyPlan (which re-reads the node and
 * re-checks preconditions before each step itself), tracked in the node store's `actions` — the
 * one progress stream the console's dialog reads — with an event when it starts and ends, and
 * one re-read of the node once it has ended, so the outcome is shown over the node as it is now.
 */
import type {
  ActionContext,
  ApplyOptions,
  ApplyResult,
  Plan,
  StepProgress,
} from '../engine/actions/types.js';
import type { NodeStore } from '../watchers/store.js';
import type { TrackedAction } from '../watchers/types.js';

export interface PlanRunnerOptions {
  store: NodeStore;
  /** The host's clock (the simulator's runs ahead of the wall clock). */
  now: () => number;
  /** Re-reads the node (the watcher's refresh); asked once per run, when it has ended. */
  refresh: (reason: string) => Promise<void>;
}

export type PlanRunner = (
  plan: Plan,
  ctx: ActionContext,
  options?: ApplyOptions & { onStart?: (actionId: string) => void },
) => Promise<ApplyResult>;

export function createPlanRunner(o: PlanRunnerOptions): PlanRunner {
  const { store } = o;
  let seq = 0;
  return async (plan, ctx, { onStart, ...applyOptions } = {}) => {
    let tracked: TrackedAction = {
      id: `${plan.action}-${++seq}`,
      plan,
      steps: plan.steps.map((s) => ({ stepId: s.id, status: 'pending' })),
      startedAt: o.now(),
    };
    const put = (patch: Partial<TrackedAction>) => {
      tracked = { ...tracked, ...patch };
      store.putAction(tracked);
    };
    const progress = (p: StepProgress) => {
      const i = tracked.steps.findIndex((s) => s.stepId === p.stepId);
      put({ steps: i < 0 ? [...tracked.steps, p] : tracked.steps.map((s, j) => (j === i ? p : s)) });
      applyOptions.onProgress?.(p);
    };
    put({});
    onStart?.(tracked.id);
    const done = store.beginBusy();
    store.pushEvents([
      { kind: 'action', severity: 'info', subject: plan.subject, message: `${plan.title}: started` },
    ]);
    let result: ApplyResult;
    try {
      // Loaded on first use: a read-only console never loads the apply machinery.
      const { applyPlan } = await import('../engine/actions/apply.js');
      result = await applyPlan(plan, ctx, { ...applyOptions, onProgress: progress });
    } catch (e) {
      put({ finishedAt: o.now() });
      store.pushEvents([
        {
          kind: 'action',
          severity: 'error',
          subject: plan.subject,
          message: `${plan.title} failed: ${(e as Error).message}`,
        },
      ]);
      done();
      void o.refresh('action failed');
      throw e;
    }
    put({ finishedAt: o.now(), result, steps: result.steps.length > 0 ? result.steps : tracked.steps });
    store.pushEvents([
      result.ok
        ? { kind: 'action', severity: 'info', subject: plan.subject, message: `${plan.title}: done` }
        : {
            kind: 'action',
            severity: 'error',
            subject: plan.subject,
            message: `${plan.title} failed: ${result.error?.message ?? 'unknown error'}`,
          },
    ]);
    try {
      await o.refresh('action finished');
    } finally {
      done();
      // Published now, not at the store's next tick: the outcome is drawn over the re-read node.
      store.flush();
    }
    return result;
  };
}
