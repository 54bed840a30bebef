/**
 * The "run" stage of one step of applyPlan: its command (CHAP values put in only here), its sysfs
 * write or file change through the Host, or its wait; and a failed step's compensations.
 */
import { InterruptedError, stepFailedError, TimeoutError, UserError } from '../errors.js';
import type { Snapshot } from '../model.js';
import { failures } from './conditions.js';
import { runDynamic } from './dynamic.js';
import { commandError } from './iscsiadm.js';
import { guardRefusal, type Runtime, record, withResolvedPortals } from './runtime.js';
import type { ActionContext, PlanStep } from './types.js';

/**
 * A failed step's compensations (kubelet deletes the record it created), each through the guard like
 * a step's own effect: one it refuses (a live session logged in through that record meanwhile) is
 * left, with a warning, never run.
 */
export async function compensate(
  rt: Runtime,
  comps: PlanStep['onFailure'],
  okExitCodes?: number[],
): Promise<void> {
  for (const c of comps ?? []) {
    const refused = guardRefusal(rt, c.effect);
    if (refused) rt.warnings.push(`left after the failure: ${c.why}: ${refused}`);
    else await record(rt, withResolvedPortals(rt, c.argv), okExitCodes ? { okExitCodes } : {});
  }
}

/** Substitutes CHAP values for `secretArgs` (the plan only holds ********). */
function realArgv(step: PlanStep, secrets: Record<string, string>): { argv: string[]; values: string[] } {
  const argv = [...step.argv!];
  const values: string[] = [];
  for (const sa of step.secretArgs ?? []) {
    const v = secrets[sa.secretKey];
    if (v === undefined || v === '')
      throw new UserError(
        `secret ${sa.secretKey} was not provided`,
        'pass the Secret manifest with --secret FILE',
      );
    argv[sa.argIndex] = v;
    values.push(v);
  }
  return { argv, values };
}

/** Runs one step's side effect; returns its detail. Throws typed errors. */
export async function execute(rt: Runtime, s: Snapshot, step: PlanStep): Promise<string> {
  if (step.dynamic) return runDynamic(rt, s, step, step.dynamic);
  if (step.argv) {
    const { argv: withSecrets, values } = realArgv(step, rt.secrets);
    const argv = withResolvedPortals(rt, withSecrets);
    const r = await record(rt, argv, {
      ...(step.okExitCodes ? { okExitCodes: step.okExitCodes } : {}),
      ...(step.timeoutMs ? { timeoutMs: step.timeoutMs } : {}),
      secrets: values,
    });
    if (!r.ok) throw commandError(r);
    return r.idempotent
      ? `already done (exit ${r.exitCode} ${r.exitName})`
      : `exit 0${r.attempts > 1 ? ` after ${r.attempts} attempts (database locked)` : ''}`;
  }
  if (step.write) {
    rt.commands.push({ write: step.write });
    rt.host.writeText(step.write.path, step.write.data);
    return `wrote ${JSON.stringify(step.write.data)} to ${step.write.path}`;
  }
  if (step.fs) {
    const { op, path } = step.fs;
    rt.commands.push({ fs: { op, path } });
    if (op === 'mkdir') rt.host.mkdir(path, 0o750);
    else if (op === 'rmdir') rt.host.rmdir(path);
    else if (op === 'unlink') rt.host.unlink(path);
    // A file the step declares as holding a secret is replaced whole at 0600 (guard/secret-file.ts).
    else if (step.effect.kind === 'write-file' && step.effect.secret)
      rt.host.replaceFile(path, step.fs.data ?? '', step.effect.mode);
    else rt.host.writeText(path, step.fs.data ?? '', 0o644);
    return `${op} ${path}`;
  }
  return 'nothing to run';
}

/** A wait step without dynamic logic: poll until its doneIf holds. */
export async function waitFor(rt: Runtime, ctx: ActionContext, step: PlanStep): Promise<string> {
  const deadline = rt.now() + (step.wait?.timeoutMs ?? 10_000);
  for (;;) {
    const s = ctx.takeSnapshot();
    const missing = failures(step.doneIf, s, ctx.host);
    if (missing.length === 0) return 'condition met';
    // A wait changes nothing on the node, so an interrupt may end it early.
    if (rt.signal?.aborted)
      throw new InterruptedError(`interrupted while waiting for ${step.wait?.what ?? step.id}`);
    if (rt.now() >= deadline) {
      throw new TimeoutError(
        `timed out waiting for ${step.wait?.what ?? step.id}: ${missing.join('; ')}`,
        'check dmesg for SCSI errors',
      );
    }
    await rt.sleep(rt.pollMs);
  }
}

/** How long a step's declared effect may take to show in sysfs after its command returned. */
const EFFECT_GRACE_MS = 2_000;

/** What a step whose effect did not show is called, and what to look at (by the effect's kind). */
const NO_EFFECT: Partial<Record<PlanStep['effect']['kind'], { what: string; hint: string }>> = {
  logout: {
    what: 'the logout',
    hint: 'iscsid logs sessions out: check that it runs (systemctl status iscsid) and what holds the session (iscsiadm -m session -P 3); nothing after this step was run',
  },
};

/**
 * A step that declares what it achieves (`takesEffect`) is checked once its command returned: a
 * command can succeed without the node changing (iscsiadm --logout exits 0 while iscsid leaves the
 * session up), and the run must not go on, or mark the step done, as if it had. The kernel removes
 * a session before iscsiadm returns, so the short grace covers only sysfs catching up.
 */
export async function checkTakesEffect(
  rt: Runtime,
  ctx: ActionContext,
  step: PlanStep,
  detail: string,
): Promise<void> {
  if (!step.takesEffect || step.takesEffect.length === 0) return;
  const deadline = rt.now() + EFFECT_GRACE_MS;
  for (;;) {
    const missing = failures(step.takesEffect, ctx.takeSnapshot(), ctx.host, 'detail-only');
    if (missing.length === 0) return;
    if (rt.now() >= deadline || rt.signal?.aborted) {
      const words = NO_EFFECT[step.effect.kind] ?? {
        what: 'the step',
        hint: 'check the node by hand before going on',
      };
      throw stepFailedError(
        `${words.what} did not take effect (the command ended with ${detail}): ${missing.join('; ')}`,
        words.hint,
      );
    }
    await rt.sleep(rt.pollMs);
  }
}
