/**
 * The one consent policy: for a plan and the situation it would run in, which refusals hold, which
 * the admin may override, and exactly what the admin must do before anything runs. The CLI
 * (`cli/commands/actions.ts`) and the console (`ui/dispatch.ts`, `ui/app.tsx`) both ask this module
 * and only phrase its answer (a flag there, a key here); neither decides anything itself.
 *
 * The rules:
 * - read-only holds everything (one refusal, `READ_ONLY_REFUSAL`, wherever it is raised);
 * - a non-overridable refusal holds: nothing the admin types applies the plan;
 * - overridable refusals need the override act, which is separate from ordinary consent: it must be
 *   requested (CLI `--force`, console `o`), it names every refusal it lifts, and its token
 *   (`override <hostname>`) is never the plain one, so typing the sid on a refused plan applies nothing;
 * - otherwise ordinary consent: none, y/N, or the typed token (the sid, the alias, or the hostname
 *   for multi-object and node-wide plans);
 * - without a terminal the ask can only be answered by `--yes`.
 */
import type { Plan, Refusal } from './types.js';

/** The read-only refusal: the same reason and hint wherever a plan meets read-only mode. */
export const READ_ONLY_REFUSAL: Readonly<Refusal> = {
  id: 'read-only',
  reason: 'read-only: changes to the node are not enabled',
  hint: 'add --write (in the console: type :write) to allow changes to the node',
  overridable: false,
};

/** The read-only refusal when writes are off, else nothing. */
export function readOnlyRefusals(write: boolean): Refusal[] {
  return write ? [] : [{ ...READ_ONLY_REFUSAL }];
}

/**
 * The refusals that stop an apply: every non-overridable one (read-only added when writes are
 * off), and the overridable ones unless the admin overrode them. applyPlan checks this again.
 */
export function blockingRefusals(plan: Plan, write: boolean, override: boolean): Refusal[] {
  const r = plan.refusals.filter((x) => !x.overridable || !override);
  if (!write && !r.some((x) => x.id === READ_ONLY_REFUSAL.id)) r.unshift({ ...READ_ONLY_REFUSAL });
  return r;
}

/**
 * The objects the override act names: exactly those of the plan's overridable refusals
 * (`Refusal.objects`). The executor's guard lifts its in-use refusals for these objects only; an
 * override never lifts anything for an object no refusal named.
 */
export function overrideObjects(plan: Plan): string[] {
  return [...new Set(plan.refusals.filter((r) => r.overridable).flatMap((r) => r.objects ?? []))];
}

/** The token of the override act: never a sid, an alias or the bare hostname (the plain tokens). */
export function overrideToken(hostname: string): string {
  return `override ${hostname}`;
}

interface ConsentContext {
  /** Writes are enabled (`--write`, or `:write` in the console). */
  write: boolean;
  /** The node's hostname (the plain token of node-wide plans; part of the override token). */
  hostname: string;
  /** Plan only: nothing runs whatever the admin answers. */
  dryRun?: boolean;
  /** The admin asked for the override act (CLI `--force`; console: the override step is open). */
  override?: boolean;
  /** Someone can answer a question (a terminal prompt, the console); false: a headless CLI run. */
  interactive: boolean;
  /** `--yes`: the ask is answered on the command line. */
  yes?: boolean;
}

/** What the admin is asked once nothing blocks the plan. */
type ConsentAsk =
  | { kind: 'none' }
  | { kind: 'yn' }
  | { kind: 'typed'; token: string }
  | { kind: 'override'; token: string; refusals: Refusal[] };

type BlockKind = 'read-only' | 'refused' | 'needs-override' | 'dry-run' | 'empty' | 'needs-yes';

export interface Consent {
  /** Refusals that hold whatever the admin does (read-only first). */
  holds: Refusal[];
  /** Refusals only the override act lifts. */
  overridable: Refusal[];
  /** What stops an apply right now (holds, and the overridable ones unless overridden). */
  blocking: Refusal[];
  /** The ordinary typed token of a `typed` plan (what the plan's own confirmation names). */
  plainToken?: string;
  /** The override act's token, when there is anything to override. */
  overrideToken?: string;
  /** Why nothing can be applied now; undefined when the ask below is all that is left. */
  blocked?: { kind: BlockKind; reason: string; hint?: string };
  /** The question to answer (meaningful when not blocked). */
  ask: ConsentAsk;
  /** `--yes` answered the ask already. */
  answered: boolean;
  /** What applyPlan's `force` must be once the admin consented. */
  force: boolean;
  /** The objects that override names (the guard lifts its in-use refusals for these only). */
  overrides: string[];
}

export function consentFor(plan: Plan, ctx: ConsentContext): Consent {
  const holds = [
    ...readOnlyRefusals(ctx.write),
    ...plan.refusals.filter((r) => !r.overridable && !(r.id === READ_ONLY_REFUSAL.id && !ctx.write)),
  ];
  const overridable = plan.refusals.filter((r) => r.overridable);
  const override = ctx.override === true && overridable.length > 0;
  const blocking = [...holds, ...(override ? [] : overridable)];
  const plainToken = plan.confirm === 'typed' ? (plan.confirmToken ?? ctx.hostname) : undefined;
  const oToken = overridable.length > 0 ? overrideToken(ctx.hostname) : undefined;
  const ask: ConsentAsk =
    overridable.length > 0
      ? { kind: 'override', token: oToken!, refusals: overridable }
      : plainToken !== undefined
        ? { kind: 'typed', token: plainToken }
        : { kind: plan.confirm === 'none' ? 'none' : 'yn' };
  const blocked = blockedBy(plan, ctx, holds, overridable, override);
  return {
    holds,
    overridable,
    blocking,
    ...(plainToken !== undefined ? { plainToken } : {}),
    ...(oToken !== undefined ? { overrideToken: oToken } : {}),
    ...(blocked ? { blocked } : {}),
    ask,
    answered: ctx.yes === true,
    force: override,
    overrides: override ? overrideObjects(plan) : [],
  };
}

function blockedBy(
  plan: Plan,
  ctx: ConsentContext,
  holds: Refusal[],
  overridable: Refusal[],
  override: boolean,
): Consent['blocked'] {
  if (holds.some((r) => r.id === READ_ONLY_REFUSAL.id))
    return {
      kind: 'read-only',
      reason: 'READ-ONLY: plan only, nothing will change',
      hint: READ_ONLY_REFUSAL.hint!,
    };
  if (holds.length > 0) {
    const hint = holds.find((r) => r.hint)?.hint;
    return { kind: 'refused', reason: 'refused: nothing will run', ...(hint ? { hint } : {}) };
  }
  if (overridable.length > 0 && !override) {
    const n = overridable.length;
    return {
      kind: 'needs-override',
      reason: `refused: ${n} refusal${n === 1 ? '' : 's'} only a separate override act lifts (${ids(overridable)})`,
    };
  }
  if (ctx.dryRun) return { kind: 'dry-run', reason: 'DRY-RUN: plan only, nothing will run' };
  if (plan.steps.length === 0) return { kind: 'empty', reason: 'nothing to do' };
  if (!ctx.interactive && ctx.yes !== true)
    return {
      kind: 'needs-yes',
      reason: 'not applied: confirmation needed',
      hint: 'add --yes to apply without a terminal (review it first with --dry-run)',
    };
  return undefined;
}

function ids(refusals: readonly Refusal[]): string {
  return [...new Set(refusals.map((r) => r.id))].join(', ');
}

/** Does this answer give the consent asked for? (Typed tokens must match exactly, spaces aside.) */
export function answerConsents(ask: ConsentAsk, answer: string): boolean {
  switch (ask.kind) {
    case 'none':
      return true;
    case 'yn':
      return /^y(es)?$/i.test(answer.trim());
    case 'typed':
    case 'override':
      return answer.trim() === ask.token;
  }
}
