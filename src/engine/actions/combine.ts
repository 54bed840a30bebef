/**
 * Several intents → one plan, for selections one planner cannot take as one input (plan-selections.ts:
 * a session and a kubelet dir marked for cleanup, several rescans): the parts' steps in order (steps
 * identical in two parts — one map flushed for two of its paths — run once), refusals and warnings
 * labelled with their part, the union of blast radius, locks and expectations, and the strongest
 * risk and confirmation.
 *
 * Each part was planned alone, so none knows what the others remove: a part that deletes "one path
 * of mpatha, the map keeps its other paths" and a part that deletes that other path would, run one
 * after the other, leave mpatha with no path and no flush (pathless-maps.ts). The parts are then
 * tried with those that flush a map first; when no order keeps every map's flush before its last
 * path, the combined plan is refused before consent.
 */
import { BugError } from '../errors.js';
import { type MapPaths, pathlessMaps } from './pathless-maps.js';
import { addUnique, maxRisk } from './plan-kit.js';
import type { BlastRadius, ConfirmLevel, Plan, PlanStep, Refusal } from './types.js';

const CONFIRM_ORDER: ConfirmLevel[] = ['none', 'yn', 'typed'];

function effect(s: PlanStep): string {
  return JSON.stringify([s.argv, s.write, s.fs, s.dynamic, s.wait]);
}

/** The parts' steps in the order given, each effect once, ids prefixed with the part's number. */
function concatSteps(plans: readonly Plan[], order: readonly number[]): PlanStep[] {
  const seen = new Set<string>();
  const steps: PlanStep[] = [];
  for (const i of order) {
    for (const st of plans[i]!.steps) {
      const key = effect(st);
      if (seen.has(key)) continue;
      seen.add(key);
      steps.push({ ...st, id: `${i + 1}.${st.id}` });
    }
  }
  return steps;
}

const isFlush = (st: PlanStep) => st.argv?.[0] === 'multipath' && st.argv[1] === '-f';

/**
 * The steps of the first order that leaves no map pathless: as given, then the parts that flush a
 * map first (stable). Otherwise the given order and one refusal per map it would leave pathless.
 */
function safeSteps(plans: readonly Plan[], s: MapPaths): { steps: PlanStep[]; refusals: Refusal[] } {
  const given = plans.map((_, i) => i);
  const flushing = given.filter((i) => plans[i]!.steps.some(isFlush));
  const orders = [given, [...flushing, ...given.filter((i) => !flushing.includes(i))]];
  for (const order of orders) {
    const steps = concatSteps(plans, order);
    if (pathlessMaps(steps, s).length === 0) return { steps, refusals: [] };
  }
  const steps = concatSteps(plans, given);
  const refusals = pathlessMaps(steps, s).map(({ map, stepId }) => ({
    id: 'map-pathless',
    reason:
      `these ${plans.length} plans together remove every path of ${map.alias} (${map.name}) without flushing it first ` +
      `(step ${stepId}): a map left with 0 paths hangs every I/O to it`,
    hint: `plan them as one: mark only rows of one action that one planner takes together (all sessions of the target: iscsi-console logout <iqn>), or flush ${map.alias} first`,
    overridable: false,
  }));
  return { steps, refusals };
}

export function combinePlans(plans: readonly Plan[], hostname: string, snapshot: MapPaths): Plan {
  if (plans.length === 0) throw new BugError('combinePlans needs at least one plan');
  if (plans.length === 1) return plans[0]!;
  const first = plans[0]!;
  const { steps, refusals: ordering } = safeSteps(plans, snapshot);
  const blast = {} as BlastRadius;
  for (const k of [
    'sessions',
    'devices',
    'maps',
    'mounts',
    'kubeletVolumes',
    'pods',
    'nodeRecords',
  ] as const) {
    blast[k] = [];
    for (const p of plans) addUnique(blast[k], ...p.blastRadius[k]);
  }
  const confirm = CONFIRM_ORDER[Math.max(...plans.map((p) => CONFIRM_ORDER.indexOf(p.confirm)))]!;
  const refusals = plans.flatMap((p) =>
    p.refusals.map((r) => ({ ...r, reason: r.id === 'read-only' ? r.reason : `${p.subject}: ${r.reason}` })),
  );
  const changed = [...new Set(plans.flatMap((p) => p.changedBy ?? []))];
  const uniqueRefusals = refusals.filter((r, i) => refusals.findIndex((x) => x.reason === r.reason) === i);
  return {
    action: first.action,
    title: `${first.title} ×${plans.length}`,
    subject: plans.map((p) => p.subject).join('; '),
    steps,
    refusals: [...uniqueRefusals, ...ordering],
    warnings: [...new Set(plans.flatMap((p) => p.warnings.map((w) => `${p.subject}: ${w}`)))],
    blastRadius: blast,
    risk: plans.map((p) => p.risk).reduce(maxRisk),
    confirm,
    // Several sids cannot be one token: a node-wide confirmation names the node.
    ...(confirm === 'typed' ? { confirmToken: hostname } : {}),
    undo: plans.flatMap((p) => p.undo),
    before: [...new Set(plans.flatMap((p) => p.before))],
    parts: [...plans],
    lockKeys: [...new Set(plans.flatMap((p) => p.lockKeys ?? []))],
    expect: plans.flatMap((p) => p.expect ?? []),
    ...(changed.length > 0 ? { changedBy: changed } : {}),
  };
}
