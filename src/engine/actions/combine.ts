/**
 * Several selections → one plan: the parts' steps in order (steps identical in two parts — one
 * map flushed for two of its paths — run once), refusals and warnings labelled with their part,
 * the union of blast radius, locks and expectations, and the strongest risk and confirmation.
 */
import { addUnique, maxRisk } from './plan-kit.js';
import type { BlastRadius, ConfirmLevel, Plan, PlanStep } from './types.js';

const CONFIRM_ORDER: ConfirmLevel[] = ['none', 'yn', 'typed'];

function effect(s: PlanStep): string {
  return JSON.stringify([s.argv, s.write, s.fs, s.dynamic, s.wait]);
}

export function combinePlans(plans: readonly Plan[], hostname: string): Plan {
  if (plans.length === 0) throw new Error('combinePlans needs at least one plan');
  if (plans.length === 1) return plans[0]!;
  const first = plans[0]!;
  const seen = new Set<string>();
  const steps: PlanStep[] = [];
  plans.forEach((p, i) => {
    for (const st of p.steps) {
      const key = effect(st);
      if (seen.has(key)) continue;
      seen.add(key);
      steps.push({ ...st, id: `${i + 1}.${st.id}` });
    }
  });
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
  const uniqueRefusals = refusals.filter((r, i) => refusals.findIndex((x) => x.reason === r.reason) === i);
  return {
    action: first.action,
    title: `${first.title} ×${plans.length}`,
    subject: plans.map((p) => p.subject).join('; '),
    steps,
    refusals: uniqueRefusals,
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
  };
}
