/**
 * Several marked rows → one plan (k9s marks, htop tags): the parts' steps in order, every refusal
 * and warning labelled with its part, the union of the blast radius, and the strongest risk and
 * confirmation of any part. A bulk plan always lists each item; there is no unbounded "all".
 */
import type { BlastRadius, ConfirmLevel, Plan, Risk } from '../engine/actions/types.js';

const RISK_ORDER: Risk[] = ['low', 'medium', 'high'];
const CONFIRM_ORDER: ConfirmLevel[] = ['none', 'yn', 'typed'];

function union(plans: readonly Plan[], k: keyof BlastRadius): string[] {
  return [...new Set(plans.flatMap((p) => p.blastRadius[k]))];
}

export function combinePlans(plans: readonly Plan[], hostname: string): Plan {
  if (plans.length === 1) return plans[0]!;
  const first = plans[0]!;
  const confirm = CONFIRM_ORDER[Math.max(...plans.map((p) => CONFIRM_ORDER.indexOf(p.confirm)))]!;
  const radius = {} as BlastRadius;
  for (const k of ['sessions', 'devices', 'maps', 'mounts', 'kubeletVolumes', 'pods', 'nodeRecords'] as const)
    radius[k] = union(plans, k);
  return {
    action: first.action,
    title: `${first.title} ×${plans.length}`,
    subject: plans.map((p) => p.subject).join('; '),
    // Step ids must stay unique across parts: progress is reported by id.
    steps: plans.flatMap((p, i) => p.steps.map((st) => ({ ...st, id: `${i + 1}.${st.id}` }))),
    refusals: plans.flatMap((p) => p.refusals.map((r) => ({ ...r, reason: `${p.subject}: ${r.reason}` }))),
    warnings: plans.flatMap((p) => p.warnings.map((w) => `${p.subject}: ${w}`)),
    blastRadius: radius,
    risk: RISK_ORDER[Math.max(...plans.map((p) => RISK_ORDER.indexOf(p.risk)))]!,
    confirm,
    // Several sids cannot be one token: a node-wide confirmation names the node (wrong-host guard, §1.6 #8).
    ...(confirm === 'typed' ? { confirmToken: hostname } : {}),
    undo: plans.flatMap((p) => p.undo),
    before: plans.flatMap((p) => p.before),
    parts: [...plans],
  };
}
