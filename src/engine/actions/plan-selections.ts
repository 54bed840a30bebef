/**
 * The plan for what the admin selected (the console's marked rows, or the row under the cursor):
 * one intent is one plan by the same planner the CLI uses for it. Marking both sessions of a target
 * and pressing `l` is `logout <iqn>`: the planner sees every path at once and flushes a map before
 * its last path goes (teardown.ts). Selections a planner cannot take as one input (a session and a
 * kubelet dir for cleanup, several rescans) are planned apart and combined (combine.ts), which refuses
 * an order that would leave a map without paths.
 */

import { UserError } from '../errors.js';
import type { Snapshot } from '../model.js';
import { combinePlans } from './combine.js';
import { pathlessMaps } from './pathless-maps.js';
import type { ActionContext, ActionDef, Plan, Scope } from './types.js';

interface SelectionRef {
  scope: Scope;
  /** Fingerprint (SessionKey, LunKey, map name, volume path, record path). */
  key: string;
}

export function planSelections(
  def: ActionDef,
  selections: readonly SelectionRef[],
  s: Snapshot,
  ctx: ActionContext,
  /** The action's boolean options (`remove-driver-files`), as the CLI takes them. */
  options: Readonly<Record<string, unknown>> = {},
): Plan {
  if (selections.length === 0) return def.plan(def.inputFromCli([], { ...options }, s), s, ctx);
  const fromOne = def.inputFromSelection;
  if (!fromOne)
    throw new UserError(`${def.title} cannot start from a selection`, `use iscsi-console ${def.usage}`);
  const inputs =
    selections.length === 1
      ? [fromOne(selections[0]!, s, options)]
      : (def.intentsFromSelections?.(selections, s, options) ??
        selections.map((sel) => fromOne(sel, s, options)));
  const plans = inputs.map((input) => def.plan(input, s, ctx));
  if (plans.length > 1) return combinePlans(plans, ctx.host.hostname(), s);
  const plan = plans[0]!;
  // One planner keeps a map's flush before its last path by construction; a plan that does not is
  // a planner's bug, refused here before consent rather than found by the executor.
  for (const { map, stepId } of pathlessMaps(plan.steps, s)) {
    plan.refusals.push({
      id: 'map-pathless',
      reason: `step ${stepId} removes the last path of ${map.alias} (${map.name}) without flushing it first`,
      hint: `flush ${map.alias} first (iscsi-console flush ${map.alias})`,
      overridable: false,
    });
  }
  return plan;
}
