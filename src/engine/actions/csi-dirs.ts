/**
 * cleanup of kubelet's leftover CSI volume dirs (docs/csi-drivers.md "Cleaning up kubelet's leftover
 * CSI dirs"): a filesystem CSI volume nothing mounts and no session is claimed through keeps kubelet's
 * `vol_data.json` and its empty `mount`/`globalmount` dirs after a failed NodeUnpublish/NodeUnstage
 * or a kubelet restart, and kubelet's orphaned-pod cleanup stops at them. Removed the way kubelet's
 * own teardown does it (kubernetes pkg/volume/csi/csi_mounter.go removeMountDir): the mount dir,
 * vol_data.json, then the dir — rmdirs and one unlink, never recursive; publish dirs before the
 * staging dir (kubelet unpublishes before it unstages).
 * Only where the paths match kubelet's layout, and only what kubelet put there: a dir holding
 * anything else stays and the plan says so.
 */

import { UserError } from '../errors.js';
import { normalizeKubeletRoot } from '../kubelet/paths.js';
import type { CsiDriverFile, CsiVolume, Snapshot } from '../model.js';
import { csiVolumeMounted, csiVolumeName, csiVolumePods } from '../snapshot/csi/describe.js';
import {
  csiPublishLayout,
  csiStagingLayout,
  driverLabel,
  GLOBAL_MOUNT,
  VOL_DATA,
} from '../snapshot/csi/paths.js';
import { podLabel } from '../text/pod-names.js';
import { csiVolumeFingerprint } from './conditions.js';
import { type DriverFileOptions, driverActivity, REMOVE_DRIVER_FILES } from './csi-claims.js';
import { csiVolumeByPath } from './lookup.js';
import { refuseEscapingPaths } from './path-guard.js';
import { addStep, addUnique, changedBy, destructive, newPlan, pre } from './plan-kit.js';
import type { ActionContext, Plan, PlanStep } from './types.js';

interface VolumeDir {
  /** The dir holding vol_data.json. */
  dir: string;
  /** `globalmount` or `mount`. */
  inner: string;
  /** Fingerprint checked before the first change to the dir. */
  fingerprint: string;
  /** Sessions the volume claimed when planned (only a forced plan proceeds with any). */
  claims: string;
}

/**
 * rmdir the inner dir, unlink vol_data.json, rmdir the dir — kubelet's removeMountDir order, so a
 * non-empty inner dir stops it before anything changed; each re-checked right before it runs.
 */
function dirSteps(d: VolumeDir): PlanStep[] {
  const json = `${d.dir}/${VOL_DATA}`;
  const inner = `${d.dir}/${d.inner}`;
  const notMounted = pre('not-mounted', `${inner} is not mounted`, inner);
  return [
    {
      id: `rmdir:${inner}`,
      why: `remove the CSI volume's empty ${d.inner} dir: nothing mounts the volume and no session is claimed through it (rmdir: fails instead of deleting anything)`,
      fs: { op: 'rmdir', path: inner },
      effect: { kind: 'rmdir', path: inner },
      preconditions: [
        notMounted,
        pre('csi-volume-is', `${inner} still belongs to ${d.fingerprint}`, inner, d.fingerprint),
        pre(
          'csi-volume-claims-only',
          d.claims
            ? `nothing mounts the volume and it claims no session but ${d.claims}`
            : 'nothing mounts the volume and no session is claimed through it',
          inner,
          d.claims,
        ),
        pre(
          'dir-holds-only',
          `${d.dir} holds only ${d.inner} and ${VOL_DATA}`,
          d.dir,
          `${d.inner},${VOL_DATA}`,
        ),
        pre('dir-holds-only', `${inner} is empty`, inner, ''),
      ],
      doneIf: [pre('path-absent', `${inner} is gone`, inner)],
    },
    {
      id: `unlink:${json}`,
      why: "remove kubelet's vol_data.json of the CSI volume",
      fs: { op: 'unlink', path: json },
      effect: { kind: 'unlink', path: json },
      preconditions: [pre('dir-holds-only', `${d.dir} holds only ${VOL_DATA}`, d.dir, VOL_DATA)],
      doneIf: [pre('path-absent', `${json} is gone`, json)],
    },
    {
      id: `rmdir:${d.dir}`,
      why: 'remove the now empty volume dir (rmdir, never recursive)',
      fs: { op: 'rmdir', path: d.dir },
      effect: { kind: 'rmdir', path: d.dir },
      preconditions: [pre('dir-holds-only', `${d.dir} is empty`, d.dir, '')],
      doneIf: [pre('path-absent', `${d.dir} is gone`, d.dir)],
    },
  ];
}

/** Mount points at or below `dir`. */
function mountsUnder(s: Snapshot, dir: string): string[] {
  return s.mounts
    .filter((m) => m.mountPoint === dir || m.mountPoint.startsWith(`${dir}/`))
    .map((m) => m.mountPoint);
}

/** The dirs of a filesystem volume in removal order (publish, then staging), or the layout problems. */
function volumeDirs(v: CsiVolume, kubeletRoot: string): { dirs: VolumeDir[]; problems: string[] } {
  const dirs: VolumeDir[] = [];
  const problems: string[] = [];
  const claims = v.sessions.join(',');
  for (const p of v.publish) {
    const l = csiPublishLayout(kubeletRoot, p.path, p.podUid, v.pv);
    if ('problem' in l) problems.push(l.problem);
    else dirs.push({ dir: l.dir, inner: 'mount', fingerprint: csiVolumeFingerprint(v, 3), claims });
  }
  if (v.stagingPath) {
    const l = csiStagingLayout(kubeletRoot, v.stagingPath, v.driver, v.volumeHandle, v.pv);
    if ('problem' in l) problems.push(l.problem);
    else dirs.push({ dir: l.dir, inner: GLOBAL_MOUNT, fingerprint: csiVolumeFingerprint(v, 2), claims });
  }
  return { dirs, problems };
}

/** Unlinks a driver's file of the volume, once nothing mounts the volume's dirs. */
function unlinkDriverFile(f: CsiDriverFile, dirs: readonly VolumeDir[]): PlanStep {
  return {
    id: `unlink:${f.path}`,
    why: `remove ${driverLabel(f.driver)}'s ${f.kind} of the volume (asked for: the driver may still act on it)`,
    fs: { op: 'unlink', path: f.path },
    effect: { kind: 'unlink', path: f.path },
    preconditions: dirs.map((d) =>
      pre('not-mounted', `${d.dir}/${d.inner} is not mounted`, `${d.dir}/${d.inner}`),
    ),
    doneIf: [pre('path-absent', `${f.path} is gone`, f.path)],
  };
}

/**
 * The driver files of the volume's dirs: one inside a dir (not kubelet's, so the dir would stay)
 * or naming one (the driver's claim on it). Refused, or with `removeDriverFiles` unlinked: a file
 * inside before its dir's steps, a file naming a dir after kubelet's dirs are gone.
 */
function driverFileSteps(
  plan: Plan,
  s: Snapshot,
  dirs: readonly VolumeDir[],
  o: DriverFileOptions,
): { inside: Map<string, PlanStep[]>; outside: PlanStep[] } {
  const paths = dirs.map((d) => d.dir);
  const inside = new Map<string, PlanStep[]>();
  const outside: PlanStep[] = [];
  for (const f of s.csi?.driverFiles ?? []) {
    const named = [f.stagingPath, ...f.publishedPaths].filter(
      (p): p is string => p !== undefined && paths.some((d) => p === d || p.startsWith(`${d}/`)),
    );
    const dir = paths.find((d) => f.path.startsWith(`${d}/`));
    if (dir === undefined && named.length === 0) continue;
    if (o.removeDriverFiles) {
      addUnique(plan.blastRadius.kubeletVolumes, f.path);
      plan.expect!.push(pre('path-absent', `${f.path} is removed`, f.path));
      if (dir === undefined) outside.push(unlinkDriverFile(f, dirs));
      else inside.set(dir, [...(inside.get(dir) ?? []), unlinkDriverFile(f, dirs)]);
      continue;
    }
    changedBy(plan, REMOVE_DRIVER_FILES);
    if (dir !== undefined) {
      plan.refusals.push({
        id: 'csi-not-empty',
        reason: `${dir} holds ${driverLabel(f.driver)}'s ${f.kind} ${f.path}: not kubelet's, so the dir stays`,
        hint: 'check the file, and clean up the session it names first (--remove-driver-files removes it anyway)',
        overridable: false,
      });
    } else {
      plan.refusals.push({
        id: 'driver-claimed',
        reason: `${driverLabel(f.driver)}'s ${f.kind} ${f.path} still names ${named[0]}; ${driverActivity(s, f.driver)}`,
        hint: `let ${driverLabel(f.driver)} finish (--remove-driver-files removes it anyway); --force removes kubelet's dirs anyway`,
        overridable: true,
      });
    }
  }
  return { inside, outside };
}

/** The cleanup plan for one CSI volume's leftover kubelet dirs (`cleanup <staging or publish path>`). */
export function planCsiVolume(
  path: string,
  s: Snapshot,
  ctx: ActionContext,
  o: DriverFileOptions = {},
): Plan {
  const v = csiVolumeByPath(s, path);
  if (!v)
    throw new UserError(`${path} is not a kubelet CSI volume path`, 'see iscsi-console status (CSI volumes)');
  const label = driverLabel(v.driver || '?');
  const plan = newPlan(
    'cleanup',
    'Clean up CSI volume dirs',
    `CSI volume ${csiVolumeName(v)} (${label}): kubelet's leftover dirs`,
    ctx,
  );
  destructive(plan, 'medium', s.node.hostname);
  const root = normalizeKubeletRoot(ctx.kubeletRoot);
  if (v.mode === 'block') {
    plan.refusals.push({
      id: 'csi-block',
      reason: `CSI volume ${csiVolumeName(v)} is a block volume: its dirs hold kubelet's loop-held device nodes, which this cleanup does not cover`,
      hint: 'let kubelet unmap it (delete the pod), or remove the dirs by hand after checking `losetup -a`',
      overridable: false,
    });
    return plan;
  }
  const { dirs, problems } = volumeDirs(v, ctx.kubeletRoot);
  for (const p of problems) {
    plan.refusals.push({
      id: 'csi-layout',
      reason: `the dirs do not match kubelet's CSI layout (docs/csi-drivers.md): ${p}`,
      hint: 'check the path and remove it by hand if it is a leftover',
      overridable: false,
    });
  }
  const mounted = [...new Set(dirs.flatMap((d) => mountsUnder(s, d.dir)))];
  if (mounted.length > 0 || csiVolumeMounted(v)) {
    plan.refusals.push({
      id: 'in-use',
      reason: `CSI volume ${csiVolumeName(v)} is mounted (${mounted.join(', ') || 'its staging or publish path'})`,
      hint: 'delete the pod; kubelet unpublishes and unstages it itself',
      overridable: false,
    });
  }
  for (const uid of csiVolumePods(v)) {
    const others = mountsUnder(s, `${root}/pods/${uid}`).filter((m) => !mounted.includes(m));
    if (others.length === 0) continue;
    plan.refusals.push({
      id: 'pod-running',
      reason: `pod ${uid} still has mounted volumes (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}): it is running or being set up or torn down, and kubelet owns its dirs`,
      hint: 'delete the pod or wait for kubelet to finish',
      overridable: false,
    });
  }
  if (v.sessions.length > 0) {
    plan.refusals.push({
      id: 'driver-claimed',
      reason: `CSI volume ${csiVolumeName(v)} claims session(s) ${v.sessions.join(', ')} (${label}); ${driverActivity(s, v.driver)}`,
      hint: `clean up the session first (iscsi-console cleanup ${v.sessions[0]}); --force removes kubelet's dirs anyway`,
      overridable: true,
    });
  }
  const files = driverFileSteps(plan, s, dirs, o);
  if (v.driver)
    plan.warnings.push(
      `${driverActivity(s, v.driver)}; kubelet's dirs are removed only while nothing mounts them`,
    );
  addUnique(plan.blastRadius.pods, ...csiVolumePods(v).map((u) => podLabel(s.kubelet.pods, u)));
  for (const d of dirs) {
    addUnique(plan.blastRadius.kubeletVolumes, d.dir);
    for (const st of [...(files.inside.get(d.dir) ?? []), ...dirSteps(d)]) addStep(plan, st);
    plan.expect!.push(pre('path-absent', `${d.dir} is removed`, d.dir));
  }
  for (const st of files.outside) addStep(plan, st);
  return refuseEscapingPaths(plan, ctx);
}
