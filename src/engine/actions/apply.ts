/**
 * applyPlan: plan → (locks) → for each step: fresh snapshot, skip if already done, re-check its
 * preconditions, run it → stop at the first failure → verify on the snapshot after the last step →
 * journal. Objects are re-found by fingerprint before every step, never by a remembered sid/sdX.
 */
import {
  ExitCode,
  ExternalCommandError,
  InterruptedError,
  RefusedError,
  TimeoutError,
  UserError,
} from '../errors.js';
import { HostIoError, maskSecrets } from '../host/host.js';
import type { Snapshot } from '../model.js';
import { rollbackAttach } from './attach-cleanup.js';
import { failures } from './conditions.js';
import { overrideObjects, blockingRefusals as refusalsBlockingApply } from './consent.js';
import { noteBefore, runDynamic } from './dynamic.js';
import { createStepGuard, type StepGuard } from './guard/executor.js';
import { modeRefusal } from './guard/mode.js';
import { commandError, realSleep } from './iscsiadm.js';
import { appendJournal, type JournalStep, newJournalId, who } from './journal.js';
import { acquireLocks, type HeldLocks } from './lock.js';
import { guardRefusal, type Runtime, record, refuseUnguarded, withResolvedPortals } from './runtime.js';
import { openStateDir, stateDirError } from './state-dir.js';
import type { ActionContext, ApplyOptions, ApplyResult, Plan, PlanStep, StepProgress } from './types.js';

type Failure = NonNullable<ApplyResult['error']>;

/** The refusals that block this apply (consent.ts: all of them, or the non-overridable ones when forced). */
export function blockingRefusals(plan: Plan, ctx: ActionContext, force: boolean) {
  return refusalsBlockingApply(plan, ctx.write, force);
}

/** Maps any thrown error to the ApplyResult error (message, hint, exit code). */
export function toFailure(e: unknown): Failure {
  if (e instanceof ExternalCommandError) {
    return {
      message: e.message,
      ...(e.hint ? { hint: e.hint } : {}),
      ...(e.exitName ? { exitName: e.exitName } : {}),
      exitCode: e.exitCode,
      kind: e.timedOut ? 'timeout' : 'external',
    };
  }
  if (e instanceof InterruptedError) return { message: e.message, exitCode: e.exitCode, kind: 'interrupted' };
  if (e instanceof TimeoutError)
    return { message: e.message, ...(e.hint ? { hint: e.hint } : {}), exitCode: e.exitCode, kind: 'timeout' };
  if (e instanceof RefusedError)
    return { message: e.message, ...(e.hint ? { hint: e.hint } : {}), exitCode: e.exitCode, kind: 'refused' };
  if (e instanceof UserError)
    return {
      message: e.message,
      ...(e.hint ? { hint: e.hint } : {}),
      exitCode: ExitCode.usage,
      kind: 'external',
    };
  if (e instanceof HostIoError) {
    const hint =
      e.code === 'EBUSY'
        ? 'the kernel says it is busy: something still holds it (mount, dm holder, open file)'
        : e.code === 'ENOENT'
          ? 'it vanished meanwhile'
          : e.code === 'EACCES' || e.code === 'EPERM'
            ? 'run as root'
            : undefined;
    return {
      message: e.message,
      ...(hint ? { hint } : {}),
      exitName: e.code,
      exitCode: ExitCode.externalFailed,
      kind: 'io',
    };
  }
  return { message: (e as Error)?.message ?? String(e), exitCode: ExitCode.bug };
}

/**
 * A failed step's compensations (kubelet deletes the record it created), each through the guard like
 * a step's own effect: one it refuses (a live session logged in through that record meanwhile) is
 * left, with a warning, never run.
 */
async function compensate(rt: Runtime, comps: PlanStep['onFailure'], okExitCodes?: number[]): Promise<void> {
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
async function execute(rt: Runtime, s: Snapshot, step: PlanStep): Promise<string> {
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
async function waitFor(rt: Runtime, ctx: ActionContext, step: PlanStep): Promise<string> {
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

/** A failed attach: roll back what it created (or list what --keep-on-failure keeps), journaled as one step. */
async function rollBack(
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

function rollbackText(r: NonNullable<ApplyResult['rollback']>): string {
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

/**
 * Applies a plan. Never throws for node failures: the result says what was done, what was not,
 * and the first error with its hint and exit code.
 */
export async function applyPlan(
  plan: Plan,
  ctx: ActionContext,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const progress: StepProgress[] = plan.steps.map((s) => ({ stepId: s.id, status: 'pending' }));
  const emit = (i: number, p: Partial<StepProgress>) => {
    progress[i] = { ...progress[i]!, ...p };
    options.onProgress?.(progress[i]!);
  };
  const blocking = blockingRefusals(plan, ctx, options.force === true);
  const mode = modeRefusal(plan, { write: ctx.write, dryRun: ctx.dryRun === true });
  if (mode && blocking.length === 0) blocking.push({ id: 'mode', reason: mode.message, overridable: false });
  if (blocking.length > 0) {
    return {
      ok: false,
      steps: progress.map((p) => ({ ...p, status: 'skipped' })),
      error: {
        message: `refused: ${blocking.map((r) => r.reason).join('; ')}`,
        ...(blocking[0]?.hint ? { hint: blocking[0].hint } : {}),
        exitCode: ExitCode.refused,
        kind: 'refused',
      },
      verified: false,
      verification: [],
    };
  }
  const secretValues = Object.values(options.secrets ?? {}).filter((v) => v !== '');
  const rt: Runtime = {
    host: ctx.host,
    ...(options.signal ? { signal: options.signal } : {}),
    secrets: options.secrets ?? {},
    ifaceRecords: new Map(),
    resolved: new Map(),
    devices: [],
    warnings: [],
    commands: [],
    pollMs: 100,
    sleep: options.sleep ?? realSleep,
    now: options.now ?? Date.now,
    discovered: [],
    scannedHosts: new Map(),
    created: { sessions: new Set(), records: new Set(), ifaces: new Set() },
    verdicts: [],
    guard: refuseUnguarded,
    ...(ctx.prober ? { prober: ctx.prober } : {}),
  };
  const guard = createStepGuard(plan, ctx, options, rt);
  let locks: HeldLocks;
  try {
    openStateDir(ctx.host, ctx.stateDir);
    locks = await acquireLocks(ctx.host, ctx.stateDir, plan.lockKeys ?? [], plan.action, {
      ...(options.lockTimeoutMs !== undefined ? { timeoutMs: options.lockTimeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  } catch (e) {
    return { ok: false, steps: progress, error: toFailure(e), verified: false, verification: [] };
  }
  rt.onChild = locks.child;
  const journalId = newJournalId();
  const base = {
    id: journalId,
    who: who(),
    host: ctx.host.hostname(),
    hostKind: ctx.host.kind,
    action: plan.action,
    subject: plan.subject,
  };
  const journalSteps: JournalStep[] = [];
  let error: Failure | undefined;
  try {
    try {
      // On disk (fsync) before the first step runs: a crash mid-plan still leaves its begin.
      const begin = {
        ...base,
        phase: 'begin' as const,
        at: new Date(ctx.host.now()).toISOString(),
        plan,
        before: plan.before,
        forced: options.force === true,
        ...(options.force === true ? { overrides: overrideObjects(plan) } : {}),
        ...(locks.notes.length > 0 ? { notes: [...locks.notes] } : {}),
      };
      if (appendJournal(ctx.host, ctx.stateDir, begin, secretValues)) {
        rt.warnings.push(
          'journal: its last line was torn (an earlier write was cut off); it was closed first',
        );
      }
      if (locks.notes.length > 0) rt.warnings.push(...locks.notes);
    } catch (e) {
      return {
        ok: false,
        steps: progress,
        error: toFailure(stateDirError(e, ctx.stateDir, 'write the journal')),
        verified: false,
        verification: [],
      };
    }
    // A plan that rolls back on failure compares against the node before its first step, which
    // need not be a dynamic one (list-luns begins with `-o new`).
    if (plan.rollback) noteBefore(rt, ctx.takeSnapshot());
    const groups = new Set(plan.steps.map((s) => s.group).filter((g): g is string => g !== undefined));
    const failedGroups = new Set<string>();
    let lastGroupFailure: Failure | undefined;
    for (let i = 0; i < plan.steps.length; i++) {
      const step = plan.steps[i]!;
      const js: JournalStep = { id: step.id, status: 'pending', commands: [] };
      journalSteps.push(js);
      if (options.signal?.aborted) {
        const previous = plan.steps[i - 1];
        error = {
          message: previous
            ? `interrupted: stopped after step ${previous.id}; ${plan.steps.length - i} later step(s) not run`
            : 'interrupted before the first step: nothing was run',
          exitCode: ExitCode.interrupted,
          kind: 'interrupted',
        };
        break;
      }
      if (step.group && failedGroups.has(step.group)) {
        emit(i, { status: 'skipped', detail: `portal ${step.group} failed earlier` });
        js.status = 'skipped';
        continue;
      }
      if (!step.group && groups.size > 0 && failedGroups.size === groups.size) {
        // kubelet: "failed to get any path for iscsi disk, last err seen" — every portal failed.
        error = {
          ...(lastGroupFailure ?? { exitCode: ExitCode.externalFailed, kind: 'external' }),
          message: `failed to get any path for iscsi disk, last err seen: ${rt.lastErr ?? 'unknown'}`,
        };
        await compensate(rt, step.onFailure);
        break;
      }
      const started = performance.now();
      emit(i, { status: 'running' });
      rt.commands = [];
      rt.onWait = (elapsed, timeout) =>
        emit(i, {
          status: 'running',
          detail: `waiting ${Math.floor(elapsed / 1000)}s of ${Math.round(timeout / 1000)}s`,
        });
      try {
        const s = ctx.takeSnapshot();
        if (
          step.doneIf &&
          step.doneIf.length > 0 &&
          failures(step.doneIf, s, ctx.host).length === 0 &&
          !step.wait
        ) {
          emit(i, {
            status: 'skipped',
            detail: `already done: ${step.doneIf.map((c) => c.text).join('; ')}`,
          });
          js.status = 'skipped';
          continue;
        }
        const unmet = failures(step.preconditions, s, ctx.host);
        if (unmet.length > 0) {
          throw new RefusedError(
            `precondition of step ${step.id} no longer holds: ${unmet.join('; ')}`,
            'the node changed since the plan was made; re-plan and review it',
          );
        }
        guard.before(step, s);
        const detail = step.wait && !step.dynamic ? await waitFor(rt, ctx, step) : await execute(rt, s, step);
        guard.after(step, s, detail);
        const durationMs = Math.round(performance.now() - started);
        emit(i, { status: 'done', detail, durationMs });
        Object.assign(js, { status: 'done', detail, durationMs });
      } catch (e) {
        const f = toFailure(e);
        const durationMs = Math.round(performance.now() - started);
        // A refused step ran nothing, so there is nothing to compensate; and a refusal (the guard's,
        // a precondition's) is never a warning or an ignorable failure.
        const refused = f.kind === 'refused';
        if (!refused) await compensate(rt, step.onFailure, [21, 2]);
        if (step.ignoreFailure && !refused) {
          emit(i, { status: 'done', detail: `ignored: ${f.message}`, durationMs });
          Object.assign(js, { status: 'done', detail: `ignored: ${f.message}`, durationMs });
        } else if (step.warnOnly && !refused) {
          rt.warnings.push(`${step.id}: ${f.message}`);
          emit(i, { status: 'done', detail: `warning: ${f.message}`, durationMs });
          Object.assign(js, { status: 'done', detail: `warning: ${f.message}`, durationMs });
        } else if (step.group && f.kind !== 'refused' && f.kind !== 'interrupted') {
          failedGroups.add(step.group);
          rt.lastErr = f.message;
          lastGroupFailure = f;
          rt.warnings.push(`portal ${step.group}: ${f.message}`);
          emit(i, { status: 'failed', detail: f.message, durationMs });
          Object.assign(js, { status: 'failed', detail: f.message, durationMs });
        } else {
          error = f;
          emit(i, { status: 'failed', detail: f.message, durationMs });
          Object.assign(js, { status: 'failed', detail: f.message, durationMs });
        }
      } finally {
        js.commands = rt.commands;
        if (rt.verdicts.length > 0) js.guard = rt.verdicts;
        rt.verdicts = [];
      }
      if (error) break;
    }
    if (!error && options.signal?.aborted && plan.steps.length > 0) {
      error = {
        message: `interrupted during the last step (${plan.steps[plan.steps.length - 1]!.id}): it ran to its end; nothing was left to skip`,
        exitCode: ExitCode.interrupted,
        kind: 'interrupted',
      };
    }
    for (let i = 0; i < progress.length; i++)
      if (progress[i]!.status === 'pending') emit(i, { status: 'skipped', detail: 'not done' });
    const rollback =
      error && plan.rollback
        ? await rollBack(rt, guard, ctx, plan, progress, journalSteps, error.kind === 'interrupted')
        : undefined;
    if (error && rollback) error = { ...error, message: `${error.message}; ${rollbackText(rollback)}` };
    const after = ctx.takeSnapshot();
    const verification = error ? [] : failures(plan.expect, after, ctx.host);
    const verified = !error && verification.length === 0;
    if (!error && !verified) {
      error = {
        message: `applied, but verification failed: ${verification.join('; ')}`,
        exitCode: ExitCode.externalFailed,
        kind: 'external',
      };
    }
    const afterPrints = [
      ...after.sessions.filter((x) => plan.before.includes(x.key)).map((x) => x.key),
      ...after.sessions
        .flatMap((x) => x.devices)
        .filter((d) => plan.before.includes(d.key))
        .map((d) => d.key),
    ];
    const result: ApplyResult = {
      ok: !error,
      steps: progress,
      ...(error ? { error } : {}),
      verified,
      verification: verified ? (plan.expect ?? []).map((c) => `ok: ${c.text}`) : verification,
      journalId,
      ...(rt.warnings.length > 0 ? { warnings: rt.warnings } : {}),
      ...(rt.devicePath ? { devicePath: rt.devicePath } : {}),
      ...(rt.luns ? { luns: rt.luns } : {}),
      ...(rt.targets ? { targets: rt.targets } : {}),
      ...(rollback ? { rollback } : {}),
    };
    try {
      appendJournal(
        ctx.host,
        ctx.stateDir,
        {
          ...base,
          phase: 'end',
          at: new Date(ctx.host.now()).toISOString(),
          steps: journalSteps,
          ok: result.ok,
          ...(error ? { error: error.message } : {}),
          after: afterPrints,
        },
        secretValues,
      );
    } catch (e) {
      result.warnings = [...(result.warnings ?? []), `journal not written: ${toFailure(e).message}`];
    }
    if (result.error) result.error.message = maskSecrets(result.error.message, secretValues);
    return result;
  } finally {
    locks.release();
  }
}
