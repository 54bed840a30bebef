/** A failed attach's rollback as applyPlan runs and journals it (what is undone: attach-cleanup.ts). */
import { rollbackAttach } from './attach-cleanup.js';
import type { StepGuard } from './guard/executor.js';
import type { JournalStep } from './journal.js';
import type { Runtime } from './runtime.js';
import type { ActionContext, ApplyResult, Plan, StepProgress } from './types.js';

/** A failed attach: roll back what it created (or list what --keep-on-failure keeps), journaled as one step. */
export async function rollBack(
  rt: Runtime,
  guard: StepGuard,
  ctx: ActionContext,
  plan: Plan,
  progress: readonly StepProgress[],
  journalSteps: JournalStep[],
  interrupted: boolean,
): Promise<NonNullable<ApplyResult['rollback']>> {
  rt.commands = [];
  guard.outsideSteps();
  // After an interrupt nothing more runs (the admin asked to stop): list what is left instead.
  const listOnly = interrupted && plan.rollback!.undoOnInterrupt !== true;
  const spec = listOnly ? { ...plan.rollback!, keep: true } : plan.rollback!;
  const r = await rollbackAttach(rt, ctx, spec, progress);
  if (listOnly && !plan.rollback!.keep) {
    // Not the admin's keep: an interrupt. Say it as "left", which is what it is.
    const left = { removed: [], left: r.left, kept: false };
    journalSteps.push({
      id: 'rollback',
      status: 'skipped',
      detail: `interrupted: ${rollbackText(left)}`,
      commands: [],
    });
    return left;
  }
  journalSteps.push({
    id: 'rollback',
    status: r.kept ? 'skipped' : r.left.length > 0 ? 'failed' : 'done',
    detail: rollbackText(r),
    commands: rt.commands,
    ...(rt.verdicts.length > 0 ? { guard: rt.verdicts } : {}),
  });
  return r;
}

export function rollbackText(r: NonNullable<ApplyResult['rollback']>): string {
  if (r.kept)
    return r.left.length > 0
      ? `kept on the node (--keep-on-failure): ${r.left.join(', ')}`
      : 'nothing was created';
  const parts = [
    ...(r.removed.length > 0 ? [`rolled back: ${r.removed.join(', ')}`] : []),
    ...(r.left.length > 0 ? [`left on the node: ${r.left.join(', ')}`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : 'nothing to roll back';
}
