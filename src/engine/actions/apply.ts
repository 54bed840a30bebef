/**
 * applyPlan, as stages: refuse (blocking refusals, mode) → state dir and locks → journal begin →
 * the step loop (each step: fresh snapshot, skip if already done, re-check its preconditions and
 * the guard, run it, its outcome written once to progress and journal) → stop at the first failure
 * (rolling back a failed attach) → verify on the snapshot after the last step → journal end.
 * Objects are re-found by fingerprint before every step, never by a remembered sid/sdX.
 */
import {
  ExitCode,
  ExternalCommandError,
  exitCodeOf,
  hintOf,
  InterruptedError,
  RefusedError,
  TimeoutError,
  UserError,
} from '../errors.js';
import { HostIoError, maskSecrets } from '../host/host.js';
import type { Snapshot } from '../model.js';
import { isoTime } from '../text/time.js';
import { rollBack, rollbackText } from './apply-rollback.js';
import { checkTakesEffect, compensate, execute, waitFor } from './apply-run.js';
import { failures } from './conditions.js';
import { overrideObjects, blockingRefusals as refusalsBlockingApply } from './consent.js';
import { noteBefore } from './dynamic.js';
import { commandText, stepRef } from './format.js';
import { createStepGuard, type StepGuard } from './guard/executor.js';
import { modeRefusal } from './guard/mode.js';
import { realSleep } from './iscsiadm.js';
import { iscsidDownAtStart } from './iscsid-needed.js';
import { appendJournal, type JournalStep, newJournalId, who } from './journal.js';
import { acquireLocks, type HeldLocks } from './lock.js';
import { type Runtime, refuseUnguarded } from './runtime.js';
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
    // Exit code and hint from the one mapping (errors.ts), as main.ts reports the same error.
    const hint = hintOf(e);
    return {
      message: e.message,
      ...(hint ? { hint } : {}),
      exitName: e.code,
      exitCode: exitCodeOf(e),
      kind: 'io',
    };
  }
  return { message: (e as Error)?.message ?? String(e), exitCode: exitCodeOf(e) };
}

/** Sets a step's progress entry and passes it to `onProgress`. */
type Emit = (i: number, p: Partial<StepProgress>) => void;

/** What one apply works with, shared by its stages. */
interface Run {
  plan: Plan;
  ctx: ActionContext;
  options: ApplyOptions;
  rt: Runtime;
  guard: StepGuard;
  emit: Emit;
  /** The journal's steps, one per step reached, in plan order. */
  journalSteps: JournalStep[];
}

/** A step's outcome: written once, to the progress stream and to the step's journal entry. */
interface Outcome {
  status: 'done' | 'skipped' | 'failed';
  detail: string;
  durationMs?: number;
  /** A dynamic step's commands as they ran (StepProgress.ran). */
  ran?: string[];
}

/** The portals (step groups) that failed so far: kubelet tries the next portal after a failed one. */
interface Portals {
  all: ReadonlySet<string>;
  failed: Set<string>;
  lastFailure?: Failure;
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
  const emit: Emit = (i, p) => {
    progress[i] = { ...progress[i]!, ...p };
    options.onProgress?.(progress[i]!);
  };
  const refused = refusedBeforeStart(plan, ctx, options, progress);
  if (refused) return refused;
  const rt = newRuntime(ctx, options);
  const guard = createStepGuard(plan, ctx, options, rt);
  let locks: HeldLocks;
  try {
    locks = await lock(plan, ctx, options);
  } catch (e) {
    return failedResult(progress, toFailure(e));
  }
  rt.onChild = locks.child;
  const run: Run = { plan, ctx, options, rt, guard, emit, journalSteps: [] };
  const journal = journalHeader(plan, ctx);
  const secretValues = Object.values(options.secrets ?? {}).filter((v) => v !== '');
  try {
    const unwritten = beginJournal(run, journal, locks, secretValues);
    if (unwritten) return failedResult(progress, unwritten);
    // A plan that rolls back on failure compares against the node before its first step, which
    // need not be a dynamic one (list-luns begins with `-o new`).
    if (plan.rollback) noteBefore(rt, ctx.takeSnapshot());
    let error = (await runSteps(run)) ?? interruptedInLastStep(plan, options);
    for (let i = 0; i < progress.length; i++)
      if (progress[i]!.status === 'pending') emit(i, { status: 'skipped', detail: 'not done' });
    const rollback =
      error && plan.rollback
        ? await rollBack(rt, guard, ctx, plan, progress, run.journalSteps, error.kind === 'interrupted')
        : undefined;
    if (error && rollback) error = { ...error, message: `${error.message}; ${rollbackText(rollback)}` };
    const after = ctx.takeSnapshot();
    const result = verify(run, after, progress, journal.id, error, rollback);
    endJournal(run, journal, result, after, secretValues);
    if (result.error) result.error.message = maskSecrets(result.error.message, secretValues);
    return result;
  } finally {
    locks.release();
  }
}

function failedResult(progress: StepProgress[], error: Failure): ApplyResult {
  return { ok: false, steps: progress, error, verified: false, verification: [] };
}

/** The refusals that block the plan, and a plan the mode does not allow: nothing runs, nothing is locked. */
function refusedBeforeStart(
  plan: Plan,
  ctx: ActionContext,
  options: ApplyOptions,
  progress: readonly StepProgress[],
): ApplyResult | undefined {
  const blocking = blockingRefusals(plan, ctx, options.force === true);
  const mode = modeRefusal(plan, { write: ctx.write, dryRun: ctx.dryRun === true });
  if (mode && blocking.length === 0) blocking.push({ id: 'mode', reason: mode.message, overridable: false });
  // iscsid may have stopped since the plan: a step that needs it would fail after the others ran.
  const iscsid = blocking.length === 0 && !ctx.dryRun ? iscsidDownAtStart(plan, ctx.host) : undefined;
  if (iscsid) blocking.push(iscsid);
  if (blocking.length === 0) return undefined;
  return failedResult(
    progress.map((p) => ({ ...p, status: 'skipped' })),
    {
      message: `refused: ${blocking.map((r) => r.reason).join('; ')}`,
      ...(blocking[0]?.hint ? { hint: blocking[0].hint } : {}),
      exitCode: ExitCode.refused,
      kind: 'refused',
    },
  );
}

function newRuntime(ctx: ActionContext, options: ApplyOptions): Runtime {
  return {
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
}

/** The state dir, then the plan's target locks (they record the pids of its running commands). */
async function lock(plan: Plan, ctx: ActionContext, options: ApplyOptions): Promise<HeldLocks> {
  openStateDir(ctx.host, ctx.stateDir);
  return acquireLocks(ctx.host, ctx.stateDir, plan.lockKeys ?? [], plan.action, {
    ...(options.lockTimeoutMs !== undefined ? { timeoutMs: options.lockTimeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

type JournalHeader = ReturnType<typeof journalHeader>;

/** What the begin and the end entry of this run share. */
function journalHeader(plan: Plan, ctx: ActionContext) {
  return {
    id: newJournalId(),
    who: who(),
    host: ctx.host.hostname(),
    hostKind: ctx.host.kind,
    action: plan.action,
    subject: plan.subject,
  };
}

/** The begin entry, on disk (fsync) before the first step runs: a crash mid-plan still leaves it. */
function beginJournal(
  run: Run,
  header: JournalHeader,
  locks: HeldLocks,
  secretValues: readonly string[],
): Failure | undefined {
  const { plan, ctx, options, rt } = run;
  try {
    const begin = {
      ...header,
      phase: 'begin' as const,
      at: isoTime(ctx.host.now()),
      plan,
      before: plan.before,
      forced: options.force === true,
      ...(options.force === true ? { overrides: overrideObjects(plan) } : {}),
      ...(locks.notes.length > 0 ? { notes: [...locks.notes] } : {}),
    };
    if (appendJournal(ctx.host, ctx.stateDir, begin, [...secretValues])) {
      rt.warnings.push('journal: its last line was torn (an earlier write was cut off); it was closed first');
    }
    if (locks.notes.length > 0) rt.warnings.push(...locks.notes);
    return undefined;
  } catch (e) {
    return toFailure(stateDirError(e, ctx.stateDir, 'write the journal'));
  }
}

/** The step loop: each step in turn until the first failure that ends the run (returned). */
async function runSteps(run: Run): Promise<Failure | undefined> {
  const { plan } = run;
  const portals: Portals = {
    all: new Set(plan.steps.map((s) => s.group).filter((g): g is string => g !== undefined)),
    failed: new Set(),
  };
  for (let i = 0; i < plan.steps.length; i++) {
    const step = plan.steps[i]!;
    const js: JournalStep = { id: step.id, status: 'pending', commands: [] };
    run.journalSteps.push(js);
    if (run.options.signal?.aborted) return interruptedBefore(plan, i);
    if (step.group && portals.failed.has(step.group)) {
      settle(run, i, js, { status: 'skipped', detail: `portal ${step.group} failed earlier` });
      continue;
    }
    if (!step.group && portals.all.size > 0 && portals.failed.size === portals.all.size) {
      await compensate(run.rt, step.onFailure);
      return noPathLeft(run.rt, portals);
    }
    const error = await runStep(run, i, js, portals);
    if (error) return error;
  }
  return undefined;
}

/** An interrupt seen between steps: nothing more runs. */
function interruptedBefore(plan: Plan, i: number): Failure {
  const previous = plan.steps[i - 1];
  return {
    message: previous
      ? `interrupted: stopped after ${stepRef(plan, previous)}; ${plan.steps.length - i} later step(s) not run`
      : 'interrupted before the first step: nothing was run',
    exitCode: ExitCode.interrupted,
    kind: 'interrupted',
  };
}

/** Every portal failed, so the volume's steps after them cannot run. */
function noPathLeft(rt: Runtime, portals: Portals): Failure {
  // kubelet: "failed to get any path for iscsi disk, last err seen" — every portal failed.
  return {
    ...(portals.lastFailure ?? { exitCode: ExitCode.externalFailed, kind: 'external' }),
    message: `failed to get any path for iscsi disk, last err seen: ${rt.lastErr ?? 'unknown'}`,
  };
}

/** An interrupt that came during the last step: it ran to its end, and the run still says so. */
function interruptedInLastStep(plan: Plan, options: ApplyOptions): Failure | undefined {
  if (!options.signal?.aborted || plan.steps.length === 0) return undefined;
  return {
    message: `interrupted during the last step, ${stepRef(plan, plan.steps[plan.steps.length - 1]!)}: it ran to its end; nothing was left to skip`,
    exitCode: ExitCode.interrupted,
    kind: 'interrupted',
  };
}

/** Writes a step's outcome, once, to the progress stream and its journal entry. */
function settle(run: Run, i: number, js: JournalStep, outcome: Outcome): void {
  run.emit(i, outcome);
  // The journal keeps the commands themselves (js.commands), not their text.
  const { ran: _ran, ...journaled } = outcome;
  Object.assign(js, journaled);
}

/**
 * One step: refresh (a fresh snapshot), skip it if already done, re-check its preconditions and the
 * guard, run it; its outcome written once. Returns the failure that ends the run, if it does.
 */
async function runStep(run: Run, i: number, js: JournalStep, portals: Portals): Promise<Failure | undefined> {
  const { rt, emit } = run;
  const step = run.plan.steps[i]!;
  const started = performance.now();
  emit(i, { status: 'running' });
  rt.commands = [];
  rt.onWait = (elapsed, timeout) =>
    emit(i, {
      status: 'running',
      detail: `waiting ${Math.floor(elapsed / 1000)}s of ${Math.round(timeout / 1000)}s`,
    });
  try {
    const outcome = await attempt(run, step, started);
    // A dynamic step's commands are known only now (device, host number): shown as they ran.
    settle(
      run,
      i,
      js,
      step.dynamic && rt.commands.length > 0 ? { ...outcome, ran: rt.commands.map(commandText) } : outcome,
    );
    return undefined;
  } catch (e) {
    const failure = toFailure(e);
    const durationMs = Math.round(performance.now() - started);
    const { outcome, error } = await afterFailure(run, step, failure, portals);
    const ran = step.dynamic && rt.commands.length > 0 ? { ran: rt.commands.map(commandText) } : {};
    settle(run, i, js, { ...outcome, durationMs, ...ran });
    return error;
  } finally {
    js.commands = rt.commands;
    if (rt.verdicts.length > 0) js.guard = rt.verdicts;
    rt.verdicts = [];
  }
}

/** Refresh, skip-if-done, preconditions and guard, run. Throws what the step failed with. */
async function attempt(run: Run, step: PlanStep, started: number): Promise<Outcome> {
  const { ctx, rt, guard } = run;
  const s: Snapshot = ctx.takeSnapshot();
  if (step.doneIf && step.doneIf.length > 0 && failures(step.doneIf, s, ctx.host).length === 0 && !step.wait)
    return { status: 'skipped', detail: `already done: ${step.doneIf.map((c) => c.text).join('; ')}` };
  const unmet = failures(step.preconditions, s, ctx.host);
  if (unmet.length > 0) {
    throw new RefusedError(
      `${stepRef(run.plan, step)} was not run: ${unmet.join('; ')}`,
      run.plan.steps.indexOf(step) === 0
        ? 'the node changed since the plan was made; re-plan and review it'
        : 'the node is not as this step needs it (it changed since the plan was made, or an earlier step did not do all it should); re-read the node, re-plan and review it',
    );
  }
  guard.before(step, s);
  const detail = step.wait && !step.dynamic ? await waitFor(rt, ctx, step) : await execute(rt, s, step);
  guard.after(step, s, detail);
  await checkTakesEffect(rt, ctx, step, detail);
  return { status: 'done', detail, durationMs: Math.round(performance.now() - started) };
}

/**
 * A failed step: its compensations run (unless it was refused: it ran nothing), then it is ignored,
 * a warning, its portal's failure (the next portal is tried) or the failure that ends the run.
 */
async function afterFailure(
  run: Run,
  step: PlanStep,
  f: Failure,
  portals: Portals,
): Promise<{ outcome: Outcome; error?: Failure }> {
  const { rt } = run;
  // A refusal (the guard's, a precondition's) is never a warning or an ignorable failure.
  const refused = f.kind === 'refused';
  if (!refused) await compensate(rt, step.onFailure, [21, 2]);
  if (step.ignoreFailure && !refused) return { outcome: { status: 'done', detail: `ignored: ${f.message}` } };
  if (step.warnOnly && !refused) {
    rt.warnings.push(`${stepRef(run.plan, step)}: ${f.message}`);
    return { outcome: { status: 'done', detail: `warning: ${f.message}` } };
  }
  if (step.group && !refused && f.kind !== 'interrupted') {
    portals.failed.add(step.group);
    portals.lastFailure = f;
    rt.lastErr = f.message;
    rt.warnings.push(`portal ${step.group}: ${f.message}`);
    return { outcome: { status: 'failed', detail: f.message } };
  }
  return { outcome: { status: 'failed', detail: f.message }, error: f };
}

/** Verifies the plan's expectations on the snapshot after the run, and builds the result. */
function verify(
  run: Run,
  after: Snapshot,
  progress: StepProgress[],
  journalId: string,
  failure: Failure | undefined,
  rollback: ApplyResult['rollback'],
): ApplyResult {
  const { plan, ctx, rt } = run;
  let error = failure;
  const verification = error ? [] : failures(plan.expect, after, ctx.host);
  const verified = !error && verification.length === 0;
  if (!error && !verified) {
    error = {
      message: `applied, but verification failed: ${verification.join('; ')}`,
      exitCode: ExitCode.externalFailed,
      kind: 'external',
    };
  }
  return {
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
}

/** The end entry: every step's outcome, and the plan's objects as the node shows them after. */
function endJournal(
  run: Run,
  header: JournalHeader,
  result: ApplyResult,
  after: Snapshot,
  secretValues: readonly string[],
): void {
  const { plan, ctx } = run;
  const afterPrints = [
    ...after.sessions.filter((x) => plan.before.includes(x.key)).map((x) => x.key),
    ...after.sessions
      .flatMap((x) => x.devices)
      .filter((d) => plan.before.includes(d.key))
      .map((d) => d.key),
  ];
  try {
    appendJournal(
      ctx.host,
      ctx.stateDir,
      {
        ...header,
        phase: 'end',
        at: isoTime(ctx.host.now()),
        steps: run.journalSteps,
        ok: result.ok,
        ...(result.error ? { error: result.error.message } : {}),
        after: afterPrints,
      },
      [...secretValues],
    );
  } catch (e) {
    result.warnings = [...(result.warnings ?? []), `journal not written: ${toFailure(e).message}`];
  }
}
