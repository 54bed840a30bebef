/**
 * The guard as the executor runs it: before each step its declared effect is checked on the
 * snapshot read for that step; a dynamic step gets `Runtime.guard` to check each effect it resolves
 * (on a snapshot read right then); after a step, what its own effect created is recorded by
 * fingerprint (the rollback and the tidy step act on that, never on "absent before the apply").
 */
import { RefusedError } from '../../errors.js';
import type { Snapshot } from '../../model.js';
import { overrideObjects } from '../consent.js';
import { recordKey } from '../lookup.js';
import type { Runtime } from '../runtime.js';
import type { ActionContext, ApplyOptions, Plan, PlanStep, ResolvedEffect } from '../types.js';
import { guardEffect, namedObjects } from './index.js';
import { changes } from './mode.js';
import type { GuardInput } from './types.js';

export interface StepGuard {
  /** Outside any step (the rollback): resolved effects are checked with no step's declaration. */
  outsideSteps(): void;
  /** Checks the step's declared effect on the snapshot read before it (throws RefusedError). */
  before(step: PlanStep, s: Snapshot): void;
  /** After the step ran (`detail` its result): records what its own effect created. */
  after(step: PlanStep, s: Snapshot, detail: string): void;
}

/** Sets up `rt.guard` and `rt.created` for one apply and returns the per-step hooks. */
export function createStepGuard(
  plan: Plan,
  ctx: ActionContext,
  options: ApplyOptions,
  rt: Runtime,
): StepGuard {
  const named = namedObjects(plan);
  const overrides = new Set(options.force === true ? overrideObjects(plan) : []);
  const input = (s: Snapshot): GuardInput => ({
    s,
    host: ctx.host,
    kubeletRoot: ctx.kubeletRoot,
    write: ctx.write,
    dryRun: ctx.dryRun === true,
    overrides,
    named,
    created: rt.created,
  });
  const judge = (e: ResolvedEffect, s: Snapshot, declared?: readonly string[]) => {
    try {
      rt.verdicts.push(guardEffect(e, input(s), declared));
    } catch (err) {
      if (err instanceof RefusedError) rt.verdicts.push(err.message);
      throw err;
    }
  };
  let declared: readonly string[] | undefined;
  rt.guard = (e) => judge(e, ctx.takeSnapshot(), declared);
  return {
    outsideSteps() {
      declared = undefined;
      rt.verdicts = [];
    },
    before(step, s) {
      rt.verdicts = [];
      const e = step.effect;
      if (e.kind !== 'at-apply') {
        declared = undefined;
        judge(e, s);
        return;
      }
      declared = e.effects;
      // Its objects are checked as it resolves them; the mode holds for the step as a whole.
      if (changes(e) && (ctx.dryRun === true || !ctx.write)) {
        const why = ctx.dryRun ? 'dry-run' : 'read-only';
        const msg = `refused by the guard [mode]: ${step.id} (${e.effects.join(', ')}): ${why}: nothing that changes the node runs`;
        rt.verdicts.push(msg);
        throw new RefusedError(msg, undefined, ['mode']);
      }
    },
    after(step, s, detail) {
      const e = step.effect;
      if (e.kind !== 'login' && e.kind !== 'record-new' && e.kind !== 'discover' && e.kind !== 'iface-new')
        return;
      const now = ctx.takeSnapshot();
      if (e.kind === 'login') {
        // Exit 15 (the session existed): someone else's login, not this one's.
        const had = s.sessions.some((x) => x.key === e.session);
        if (!had && !detail.startsWith('already done') && now.sessions.some((x) => x.key === e.session))
          rt.created.sessions.add(e.session);
      } else if (e.kind === 'record-new') {
        const had = s.nodeRecords.some((r) => recordKey(r) === e.record);
        if (!had && now.nodeRecords.some((r) => recordKey(r) === e.record)) rt.created.records.add(e.record);
      } else if (e.kind === 'discover') {
        const had = new Set(s.nodeRecords.map(recordKey));
        const listed = new Set(rt.discovered);
        for (const r of now.nodeRecords) {
          const k = recordKey(r);
          if (!had.has(k) && listed.has(k)) rt.created.records.add(k);
        }
      } else if (!s.ifaces.some((i) => i.name === e.iface) && now.ifaces.some((i) => i.name === e.iface)) {
        rt.created.ifaces.add(e.iface);
      }
    },
  };
}
