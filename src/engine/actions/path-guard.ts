/**
 * Second line of defence for plans that change the kubelet tree: every path a step creates,
 * writes, unlinks, removes or mounts onto must stay inside the kubelet plugin dir after
 * normalisation (src/engine/kubelet/paths.ts pluginPathProblem) — or, for the unlink of a CSI driver's
 * own metadata file, inside that driver's dirs (src/engine/snapshot/csi/paths.ts). A plan with one that does not is
 * refused as a whole (not overridable), with the path and the reason.
 */
import { pluginPathProblem } from '../kubelet/paths.js';
import { driverFileDirs } from '../snapshot/csi/paths.js';
import type { Plan } from './types.js';

/** The paths a plan's steps touch: fs ops and format-and-mount targets. */
function kubeletPaths(plan: Plan): { path: string; unlink: boolean }[] {
  const out: { path: string; unlink: boolean }[] = [];
  for (const s of plan.steps) {
    if (s.fs) out.push({ path: s.fs.path, unlink: s.fs.op === 'unlink' });
    if (s.dynamic?.kind === 'format-and-mount') out.push({ path: s.dynamic.target, unlink: false });
  }
  return out;
}

/** A CSI driver's own metadata file: unlinked only, and only inside one of the drivers' dirs. */
function isDriverFile(kubeletRoot: string, path: string): boolean {
  if (path.split('/').some((p) => p === '.' || p === '..')) return false;
  return driverFileDirs(kubeletRoot).some((d) => path.startsWith(`${d}/`));
}

/** Adds a `path-escape` refusal to `plan` for each kubelet path outside the plugin dir; returns the plan. */
export function refuseEscapingPaths(plan: Plan, kubeletRoot: string): Plan {
  const seen = new Set<string>();
  for (const { path: p, unlink } of kubeletPaths(plan)) {
    const problem = pluginPathProblem(kubeletRoot, p);
    if (problem && unlink && isDriverFile(kubeletRoot, p)) continue;
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
