/**
 * Second line of defence for plans that change the kubelet tree: every path a step creates,
 * writes, unlinks, removes or mounts onto must stay inside the kubelet plugin dir after
 * normalisation (src/engine/kubelet/paths.ts pluginPathProblem) — or, for the unlink of a CSI driver's
 * own metadata file, inside that driver's dirs, and for kubelet's leftover CSI volume dirs, exactly
 * a volume dir, its vol_data.json, globalmount or mount (src/engine/snapshot/csi/paths.ts). A plan with one that does not is
 * refused as a whole (not overridable), with the path and the reason.
 */
import { pluginPathProblem } from '../kubelet/paths.js';
import { driverFileDirs, isKubeletCsiVolumePath } from '../snapshot/csi/paths.js';
import type { Plan } from './types.js';

/** The paths a plan's steps touch: fs ops and format-and-mount targets. */
function kubeletPaths(plan: Plan): { path: string; op?: string }[] {
  const out: { path: string; op?: string }[] = [];
  for (const s of plan.steps) {
    if (s.fs) out.push({ path: s.fs.path, op: s.fs.op });
    if (s.dynamic?.kind === 'format-and-mount') out.push({ path: s.dynamic.target });
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
  for (const { path: p, op } of kubeletPaths(plan)) {
    const problem = pluginPathProblem(kubeletRoot, p);
    if (problem && op === 'unlink' && isDriverFile(kubeletRoot, p)) continue;
    // kubelet's CSI volume dirs: only their vol_data.json unlinked and the dirs rmdir'ed.
    if (problem && (op === 'unlink' || op === 'rmdir') && isKubeletCsiVolumePath(kubeletRoot, p)) continue;
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
