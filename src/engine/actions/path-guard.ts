/**
 * Second line of defence for plans that change the kubelet tree: every path a step creates,
 * writes, unlinks, removes or mounts onto must stay inside the kubelet plugin dir after
 * normalisation (src/engine/kubelet/paths.ts pluginPathProblem) — or, for the unlink of a CSI driver's
 * own metadata file, inside that driver's dirs, and for kubelet's leftover CSI volume dirs, exactly
 * a volume dir, its vol_data.json, globalmount or mount (src/engine/snapshot/csi/paths.ts) — and
 * be reached there without a symbolic link (src/engine/host/path-problem.ts: a link planted in
 * kubelet's tree would move the change to wherever it points). A plan with one that does not is
 * refused as a whole (not overridable), with the path and the reason.
 */
import type { Host } from '../host/host.js';
import { type PathOp, pathProblem } from '../host/path-problem.js';
import { normalizeKubeletRoot, pluginDir, pluginPathProblem } from '../kubelet/paths.js';
import { csiPluginDir, driverFileDirs, isKubeletCsiVolumePath } from '../snapshot/csi/paths.js';
import type { Plan } from './types.js';

interface PlannedPath {
  path: string;
  op: PathOp;
  /** The plan's step op as written (`write-json` is a write). */
  stepOp?: string;
}

/** The paths a plan's steps touch: fs ops and format-and-mount targets. */
function kubeletPaths(plan: Plan): PlannedPath[] {
  const out: PlannedPath[] = [];
  for (const s of plan.steps) {
    if (s.fs)
      out.push({ path: s.fs.path, op: s.fs.op === 'write-json' ? 'write' : s.fs.op, stepOp: s.fs.op });
    if (s.dynamic?.kind === 'format-and-mount') out.push({ path: s.dynamic.target, op: 'mount' });
  }
  return out;
}

/** A CSI driver's own metadata file: unlinked only, and only inside one of the drivers' dirs. */
function isDriverFile(kubeletRoot: string, path: string): boolean {
  if (path.split('/').some((p) => p === '.' || p === '..')) return false;
  return driverFileDirs(kubeletRoot).some((d) => path.startsWith(`${d}/`));
}

/** Why a planned path is not safe: the lexical rule of its kind, then the walk without links. */
function plannedPathProblem(host: Host, kubeletRoot: string, p: PlannedPath): string | undefined {
  const lexical = pluginPathProblem(kubeletRoot, p.path);
  if (!lexical) return pathProblem(host, p.op, p.path, [pluginDir(kubeletRoot)]);
  if (p.op === 'unlink' && isDriverFile(kubeletRoot, p.path))
    return pathProblem(host, p.op, p.path, driverFileDirs(kubeletRoot));
  // kubelet's CSI volume dirs: only their vol_data.json unlinked and the dirs rmdir'ed.
  if ((p.op === 'unlink' || p.op === 'rmdir') && isKubeletCsiVolumePath(kubeletRoot, p.path))
    return pathProblem(host, p.op, p.path, [
      csiPluginDir(kubeletRoot),
      `${normalizeKubeletRoot(kubeletRoot)}/pods`,
    ]);
  return lexical;
}

/** Adds a `path-escape` refusal to `plan` for each path outside its dir or reached through a link. */
export function refuseEscapingPaths(plan: Plan, ctx: { host: Host; kubeletRoot: string }): Plan {
  const seen = new Set<string>();
  for (const p of kubeletPaths(plan)) {
    if (seen.has(p.path)) continue;
    const problem = plannedPathProblem(ctx.host, ctx.kubeletRoot, p);
    if (!problem) continue;
    seen.add(p.path);
    plan.refusals.push({
      id: 'path-escape',
      reason: `refusing to touch a path outside the kubelet plugin dir: ${problem}`,
      hint: problem.includes('symbolic link')
        ? "something on the node made a link inside kubelet's tree; inspect it (ls -l) and remove the link by hand if it is not kubelet's"
        : 'a name used to build the path holds "/" or ".."; check the target name, iface and volume name',
      overridable: false,
    });
  }
  return plan;
}
