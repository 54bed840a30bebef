/**
 * Cleanup and logout around CSI drivers (docs/csi-drivers.md): what a driver still claims
 * is refused (overridable: the driver may be mid NodeStage/NodeUnstage); Longhorn's sessions are
 * Longhorn's to log out; a driver's own metadata file goes only after the session is gone, and only
 * when the driver is not running or the admin asks — one unlink, never a recursive delete.
 */
import type { CsiDriverState, Session, Snapshot } from '../model.js';
import { driverLabel, longhornVolume } from '../snapshot/csi/paths.js';
import { addStep, addUnique, changedBy, pre } from './plan-kit.js';
import type { Plan } from './types.js';

/** cleanup's option that unlinks a CSI driver's own files (the console's plan toggle). */
export const REMOVE_DRIVER_FILES = 'remove-driver-files';

function driverState(s: Snapshot, name: string): CsiDriverState | undefined {
  return s.csi?.drivers.find((d) => d.name === name);
}

/** "the driver is running and may still act on this" — or what is known about it. */
export function driverActivity(s: Snapshot, name: string): string {
  const d = driverState(s, name);
  const label = driverLabel(name);
  if (d?.running) return `${label} is running (${d.processes.join(', ')}) and may still act on this`;
  if (d?.running === false)
    return `${label}'s node plugin is not running${d.registered ? ' (its registration socket is still there)' : ''}`;
  if (d?.registered) return `${label} is registered with kubelet and may still act on this`;
  return `${label} is not registered with kubelet on this node`;
}

/** Refusals for sessions a CSI driver claims, and for Longhorn's sessions. */
export function addCsiRefusals(plan: Plan, s: Snapshot, sessions: readonly Session[]): void {
  for (const x of sessions) {
    const claim = x.claims?.[0];
    if (x.verdict === 'claimed' && claim) {
      plan.refusals.push({
        id: 'driver-claimed',
        reason: `session ${x.sid} (${x.targetIqn} @ ${x.portal}) ${x.reasons[0] ?? `is claimed by ${driverLabel(claim.driver)}`}; ${driverActivity(s, claim.driver)}`,
        hint: `let ${driverLabel(claim.driver)} finish (or delete the pod / PV so it unstages); --force tears it down anyway`,
        overridable: true,
        objects: [x.key],
      });
    }
    for (const c of x.claims ?? []) {
      if (c.owner !== 'csi' || c.mounted || c.paths.length === 0) continue;
      plan.warnings.push(
        `kubelet's CSI dirs of volume ${c.pv ?? c.volumeHandle ?? c.paths[0]} stay (kubelet's): once the session is gone, \`iscsi-console cleanup ${c.paths[0]}\` removes them if they are leftovers`,
      );
    }
    const lh = longhornVolume(x.targetIqn);
    if (lh) {
      plan.refusals.push({
        id: 'longhorn',
        reason: `session ${x.sid} is Longhorn's (volume ${lh}): Longhorn's instance manager logs it in and out itself`,
        hint: 'detach or salvage the volume in Longhorn (UI, or kubectl -n longhorn-system); --force only if Longhorn is gone from this node',
        overridable: true,
        objects: [x.key],
      });
    }
  }
}

/** `--remove-driver-files` as a planner's input: a session's cleanup (here) and a CSI volume's (csi-dirs.ts). */
export interface DriverFileOptions {
  /** The admin asked to remove the driver's own files even while the driver runs. */
  removeDriverFiles?: boolean;
}

/**
 * After the sessions' logout steps: unlink the driver files that claimed them (one file each, never
 * a directory), when the driver is not running or the admin asked; otherwise a warning says why not.
 */
export function addDriverFileSteps(
  plan: Plan,
  s: Snapshot,
  sessions: readonly Session[],
  o: DriverFileOptions,
): void {
  const done = new Set<string>();
  for (const x of sessions) {
    for (const c of x.claims ?? []) {
      if (c.owner !== 'driver-file') continue;
      const path = c.paths[0];
      if (!path || done.has(path)) continue;
      done.add(path);
      const running = driverState(s, c.driver)?.running;
      if (running !== false && !o.removeDriverFiles) {
        plan.warnings.push(
          `${path} is kept: ${driverActivity(s, c.driver)} (--remove-driver-files removes it anyway)`,
        );
        changedBy(plan, REMOVE_DRIVER_FILES);
        continue;
      }
      addUnique(plan.blastRadius.kubeletVolumes, path);
      addStep(plan, {
        id: `unlink:${path}`,
        why: `remove ${driverLabel(c.driver)}'s metadata of the logged-out session (so the driver does not act on a session that is gone)`,
        fs: { op: 'unlink', path },
        effect: { kind: 'unlink', path },
        preconditions: [pre('session-absent', `session ${x.sid} is logged out`, x.key)],
        doneIf: [pre('path-absent', `${path} is gone`, path)],
      });
      plan.expect!.push(pre('path-absent', `${path} is removed`, path));
    }
  }
}
