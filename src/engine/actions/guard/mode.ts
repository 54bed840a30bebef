/** Dry-run and read-only are enforced here: whoever calls the executor, no change runs in either. */
import type { Plan, StepEffect } from '../types.js';
import type { Invariant } from './types.js';

export const modeInvariant: Invariant = {
  id: 'mode',
  rule: 'In dry-run and in read-only mode no step that changes the node runs, whoever asks.',
  check(e, g) {
    if (e.kind === 'none') return undefined;
    if (g.dryRun) return { object: e.kind, reason: 'dry-run: nothing that changes the node runs' };
    if (!g.write) return { object: e.kind, reason: 'read-only: add --write to change the node' };
    return undefined;
  },
};

/** The mode's refusal of a whole plan that would change the node, before anything (locks, journal) runs. */
export function modeRefusal(
  plan: Plan,
  g: { write: boolean; dryRun: boolean },
): { message: string; hint?: string } | undefined {
  const changing = plan.steps.filter((st) => changes(st.effect));
  if (changing.length === 0 || (!g.dryRun && g.write)) return undefined;
  const first = changing[0]!;
  return g.dryRun
    ? {
        message: `refused by the guard [mode]: dry-run: step ${first.id} would change the node; nothing runs`,
        hint: 'turn dry-run off (:dry-run in the console; drop --dry-run) to apply it',
      }
    : {
        message: `refused by the guard [mode]: read-only: step ${first.id} would change the node; nothing runs`,
        hint: 'add --write (in the console: type :write) to allow changes to the node',
      };
}

/** Does a step with this effect change the node? */
export function changes(e: StepEffect): boolean {
  return e.kind === 'at-apply' ? e.effects.length > 0 : e.kind !== 'none';
}
