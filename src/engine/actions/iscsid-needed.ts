/**
 * Steps that need iscsid: iscsiadm hands logins, logouts, discoveries and session rescans to the
 * daemon over its socket and exits 20 ("could not connect to iscsid", open-iscsi usr/iscsid_req.c;
 * captured in err-discovery-without-iscsid.txt) without it. Node-record edits (`-m node -o`) work
 * on the files and do not. With iscsid down a plan with such a step is refused before anything runs
 * (this planner-side check, applied to every action through the registry) and the executor's guard
 * re-checks it before each such step (guard/iscsid.ts), so a cleanup never deletes the devices and
 * then fails at the logout.
 */
import type { Host } from '../host/host.js';
import type { Snapshot } from '../model.js';
import { readIscsidState } from '../snapshot/iscsid.js';
import type { ActionDef, Plan, PlanStep, Refusal, ResolvedEffect, StepEffect } from './types.js';

/** Effect kinds whose commands iscsiadm passes to iscsid. */
const NEEDS_ISCSID: ReadonlySet<string> = new Set(['login', 'logout', 'discover', 'rescan']);

/** True when a (resolved or declared) effect needs iscsid. */
export function needsIscsid(e: StepEffect | ResolvedEffect): boolean {
  if (e.kind === 'at-apply') return e.effects.some((k) => NEEDS_ISCSID.has(k));
  return NEEDS_ISCSID.has(e.kind);
}

/** `iscsiadm -m node … --logout` of the first step that needs iscsid, else its id. */
function stepWords(s: PlanStep): string {
  return 'argv' in s && s.argv ? s.argv.join(' ') : s.why;
}

/** The `iscsid-down` refusal of a plan with a step that needs iscsid (not overridable), else undefined. */
function iscsidRefusal(plan: Plan): Refusal | undefined {
  const i = plan.steps.findIndex((s) => needsIscsid(s.effect));
  if (i < 0) return undefined;
  return {
    id: 'iscsid-down',
    reason: `iscsid is not running, and step ${i + 1} (${stepWords(plan.steps[i]!)}) needs it: iscsiadm would fail with exit 20 after the steps before it had run`,
    hint: 'start iscsid (systemctl start iscsid), then plan again',
    overridable: false,
  };
}

/** Adds the `iscsid-down` refusal when the snapshot has iscsid down and a step needs it. */
function refuseWithoutIscsid(plan: Plan, snap: Snapshot): Plan {
  const r = snap.iscsid === 'down' ? iscsidRefusal(plan) : undefined;
  if (r) plan.refusals.push(r);
  return plan;
}

/**
 * The executor's check before anything runs: iscsid read now (it may have stopped since the plan),
 * refused when down and a step needs it, so no step before that one runs either.
 */
export function iscsidDownAtStart(plan: Plan, host: Host): Refusal | undefined {
  if (!plan.steps.some((s) => needsIscsid(s.effect))) return undefined;
  return readIscsidState(host) === 'down' ? iscsidRefusal(plan) : undefined;
}

/** The action with its planner's plans checked for iscsid (the registry wraps every action). */
export function withIscsidCheck<D extends ActionDef>(def: D): D {
  return { ...def, plan: (input, snap, ctx) => refuseWithoutIscsid(def.plan(input, snap, ctx), snap) };
}
