/**
 * Second line of defence for plans that change the kubelet tree: every path a step creates,
 * writes, unlinks, removes or mounts onto must stay inside the kubelet plugin dir after
 * normalisation (src/engine/kubelet/paths.ts pluginPathProblem). A plan with one that does not is
 * refused as a whole (not overridable), with the path and the reason.
 */
import { pluginPathProblem } from '../kubelet/paths.js';
import type { Plan } from './types.js';

/** The kubelet-tree paths a plan's steps touch: fs ops and format-and-mount targets. */
function kubeletPaths(plan: Plan): string[] {
  const out: string[] = [];
  for (const s of plan.steps) {
    if (s.fs) out.push(s.fs.path);
    if (s.dynamic?.kind === 'format-and-mount') out.push(s.dynamic.target);
  }
  return out;
}

/** Adds a `path-escape` refusal to `plan` for each kubelet path outside the plugin dir; returns the plan. */
export function refuseEscapingPaths(plan: Plan, kubeletRoot: string): Plan {
  const seen = new Set<string>();
  for (const p of kubeletPaths(plan)) {
    const problem = pluginPathProblem(kubeletRoot, p);
    if (!problem || seen.has(p)) continue;
    seen.add(p);
    plan.refusals.push({
      id: 'path-escape',
      reason: `refusing to touch a path outside the kubelet plugin dir: ${problem}`,
      hint: 'a name used to build the path holds "/" or ".."; check the target name, iface and volume name',
      overridable: false,
    });
  }
  return plan;
}
