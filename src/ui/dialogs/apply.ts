/**
 * Running a consented plan from the console: the Progress dialog while it runs, the Outcome
 * dialog when it ends. The run itself (tracking, journal, refresh) is the app's `apply`.
 */
import type { ApplyResult, Plan } from '../../engine/actions/types.js';
import type { DispatchContext } from '../context.js';

export function startApply(ctx: DispatchContext, plan: Plan, force: boolean): void {
  const controller = new AbortController();
  ctx.running.controller = controller;
  ctx.ui.setState({
    mode: 'busy',
    dialog: {
      kind: 'progress',
      plan,
      steps: plan.steps.map((x) => ({ stepId: x.id, status: 'pending' })),
      stopRequested: false,
      askQuit: false,
      quitAfter: false,
      controller,
    },
  });
  const onProgress = (p: { stepId: string; status: string }) => {
    const d = ctx.ui.getState().dialog;
    if (d?.kind !== 'progress') return;
    const steps = d.steps.map((x) => (x.stepId === p.stepId ? { ...x, ...p } : x)) as typeof d.steps;
    ctx.ui.setState({ dialog: { ...d, steps } });
  };
  const finish = (result: ApplyResult) => outcome(ctx, result, plan);
  const secrets = ctx.ui.getState().pendingSecrets;
  ctx.ui.setState({ pendingSecrets: undefined });
  ctx.backend
    .apply(plan, {
      write: ctx.ui.getState().write,
      force,
      onProgress,
      signal: controller.signal,
      ...(secrets ? { secrets } : {}),
    })
    .then(finish, (e: Error & { hint?: string }) =>
      finish({
        ok: false,
        steps: [],
        verified: false,
        verification: [],
        error: { message: e.message, ...(e.hint ? { hint: e.hint } : {}) },
      }),
    );
}

function outcome(ctx: DispatchContext, result: ApplyResult, plan: Plan): void {
  ctx.running.controller = undefined;
  ctx.backend.refreshNow();
  const d = ctx.ui.getState().dialog;
  const quitAfter = d?.kind === 'progress' && d.quitAfter;
  ctx.ui.setState({
    mode: 'confirm',
    dialog: { kind: 'outcome', plan, result },
    marks: [],
    detailScroll: 0,
    // A failed attach keeps the wizard's values for the next `a`; a successful one drops them.
    ...(plan.action === 'attach' && result.ok ? { wizardDraft: undefined } : {}),
  });
  if (quitAfter) ctx.exit();
}
