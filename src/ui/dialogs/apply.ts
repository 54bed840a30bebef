/**
 * Running a consented plan from the console: the Progress dialog while it runs, the Outcome
 * dialog when it ends. The run itself (tracked in the store's `actions`, which the Progress dialog
 * reads; journaled; the node re-read at its end) is the app's `apply`.
 */
import type { ApplyResult, Plan } from '../../engine/actions/types.js';
import type { DispatchContext } from '../context.js';

export function startApply(ctx: DispatchContext, plan: Plan, force: boolean): void {
  const controller = new AbortController();
  ctx.running.controller = controller;
  ctx.ui.setState({
    mode: 'busy',
    dialog: { kind: 'progress', plan, stopRequested: false, askQuit: false, quitAfter: false, controller },
  });
  const finish = (result: ApplyResult) => outcome(ctx, result, plan);
  const secrets = ctx.ui.getState().pendingSecrets;
  ctx.ui.setState({ pendingSecrets: undefined });
  ctx.backend
    .apply(plan, {
      write: ctx.ui.getState().write,
      dryRun: ctx.ui.getState().dryRun,
      force,
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

/** The run has ended (the app re-read the node once already): the Outcome dialog replaces Progress. */
function outcome(ctx: DispatchContext, result: ApplyResult, plan: Plan): void {
  ctx.running.controller = undefined;
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
