/**
 * The executor's guard: the second line behind the planners' refusals. Right before every step
 * (and, for a dynamic step, before each side effect it resolves at apply time) it checks the step's
 * effect against the fresh snapshot with every invariant below, whoever built the plan — planner,
 * combiner, rollback, tidy, wizard listing. A breach is a RefusedError (exit 3) naming the
 * invariant and the object; every verdict is journaled with the step.
 */
import { RefusedError } from '../../errors.js';
import type { Plan, ResolvedEffect } from '../types.js';
import { effectLabel } from './effect-object.js';
import { inUseInvariant } from './in-use.js';
import { iscsidInvariant } from './iscsid.js';
import { mapPathsInvariant } from './map-paths.js';
import { modeInvariant } from './mode.js';
import { namedInvariant } from './named.js';
import { pathInvariant } from './paths.js';
import { secretFileInvariant } from './secret-file.js';
import type { GuardInput, Invariant } from './types.js';
import { unmountScopeInvariant } from './unmount-scope.js';

/** Every invariant, in the order they are checked (the mode first: in dry-run nothing else matters). */
const INVARIANTS: readonly Invariant[] = [
  modeInvariant,
  iscsidInvariant,
  inUseInvariant,
  mapPathsInvariant,
  namedInvariant,
  unmountScopeInvariant,
  pathInvariant,
  secretFileInvariant,
];

/**
 * Checks one resolved effect: returns the verdict line to journal, or throws the RefusedError.
 * `declared`: for an effect a dynamic step resolved, the kinds the step declared.
 */
export function guardEffect(e: ResolvedEffect, g: GuardInput, declared?: readonly string[]): string {
  const label = effectLabel(e);
  if (declared && !declared.includes(e.kind))
    throw new RefusedError(
      `refused by the guard [declared]: ${label}: the step declared only ${declared.join(', ')}`,
      'a dynamic step may only have the effects it declared in the plan',
      ['declared'],
    );
  const overridden: string[] = [];
  for (const inv of INVARIANTS) {
    const b = inv.check(e, g);
    if (!b) continue;
    // The admin's override lifts an overridable breach for exactly the object it names.
    if (b.overridable && g.overrides.has(b.object)) {
      overridden.push(`${inv.id} on ${b.object} (${b.reason})`);
      continue;
    }
    throw new RefusedError(
      `refused by the guard [${inv.id}]: ${label}: ${b.reason}`,
      b.overridable
        ? `only the admin's override for ${b.object} lifts this (CLI --force, console o), and only when the plan's own refusal names it`
        : 'the node is not as the plan needs it; re-plan and review it',
      [inv.id],
    );
  }
  return overridden.length > 0
    ? `${label}: ok by the admin's override: ${overridden.join('; ')}`
    : `${label}: ok`;
}

/** Sessions and records a plan names when the admin consents: its steps' effects and `before`. */
export function namedObjects(plan: Plan): Set<string> {
  const out = new Set(plan.before);
  for (const st of plan.steps) {
    const e = st.effect;
    if (e.kind === 'logout' || e.kind === 'login') out.add(e.session);
    if (e.kind === 'record-delete' || e.kind === 'record-new' || e.kind === 'record-update')
      out.add(e.record);
  }
  return out;
}
