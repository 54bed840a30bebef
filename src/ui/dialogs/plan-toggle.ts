/**
 * The plan dialog's toggle: an action's boolean CLI option that the console offers as a key in its
 * plan (OptionSpec.toggle; cleanup's `--remove-driver-files`). Tab re-plans through the same
 * planner with the option flipped (`ConsoleBackend.plan`, the engine's planSelections), so the extra
 * steps show in the plan before consent. The toggle is offered only where the planner says it
 * changes the plan.
 */
import type { ConsoleBackend, Selection } from '../../app/backend.js';
import type { ActionDef, Plan } from '../../engine/actions/types.js';

export interface PlanToggle {
  action: ActionDef['id'];
  selections: Selection[];
  /** The CLI option's name (`remove-driver-files`). */
  option: string;
  /** What it does, in the console's words. */
  label: string;
  on: boolean;
}

/**
 * The toggle a freshly opened plan offers: its action's toggle option, where the planner said the
 * option would change this plan (Plan.changedBy), so opening the dialog plans once.
 */
export function offeredToggle(def: ActionDef, selections: Selection[], plan: Plan): PlanToggle | undefined {
  const spec = def.cliOptions.find((o) => o.type === 'boolean' && o.toggle !== undefined);
  if (!spec?.toggle || !plan.changedBy?.includes(spec.name)) return undefined;
  return { action: def.id, selections, option: spec.name, label: spec.toggle, on: false };
}

/** The plan with the toggle flipped, planned afresh on the node as it is now. */
export function flipToggle(
  backend: ConsoleBackend,
  t: PlanToggle,
  write: boolean,
): { plan: Plan; toggle: PlanToggle } {
  const on = !t.on;
  return {
    plan: backend.plan(t.action, t.selections, write, on ? { [t.option]: true } : {}),
    toggle: { ...t, on },
  };
}

/** The toggle's line at the top of the plan: a checkbox and its key. */
export function toggleLine(t: PlanToggle): string {
  return `[${t.on ? 'x' : ' '}] ${t.label} (tab ${t.on ? 'undoes' : 'adds'} it)`;
}
