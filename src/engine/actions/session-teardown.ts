/**
 * Logging sessions out the way kubelet's DetachDisk does (docs/kubelet-iscsi.md#detachdisk), with the device half made
 * explicit (docs/field-incidents.md#13-kernel-hang-on-logout-with-devices-present: logout with SCSI devices present can hang kernel workers): delete devices →
 * per portal `--logout` + `-o delete` → cloned-iface delete. Used by logout and cleanup.
 */
import { discoverArgv, loginArgv } from '../iscsiadm/argv.js';
import type { Session, Snapshot } from '../model.js';
import { kubectlDeletePods, podsPhrase } from '../text/pod-names.js';
import { shellLine } from './format.js';
import { recordKey } from './lookup.js';
import { addSessionsToBlast, addStep, ifaceDeleteStep, isClonedIface, logoutSteps, pre } from './plan-kit.js';
import { addDeviceTeardown } from './teardown.js';
import type { Plan } from './types.js';

/** Refusals shared by logout and cleanup: sessions pods use, sessions kubelet does not know. */
export function addSessionRefusals(plan: Plan, s: Snapshot, sessions: readonly Session[]): void {
  for (const x of sessions) {
    if (x.verdict === 'in-use') {
      plan.refusals.push(inUseRefusal(s, x));
    } else if (x.verdict === 'foreign') {
      plan.refusals.push({
        id: 'foreign',
        reason: `session ${x.sid} (${x.targetIqn} @ ${x.portal}) is not a kubelet volume: something else on this node logged it in`,
        hint: 'make sure no other software (backup agent, database, CSI driver) uses it; --force to log it out anyway',
        overridable: true,
        objects: [x.key],
      });
    }
  }
}

/**
 * Why a session counts as in use, naming its pods and the commands that delete them; a session no
 * pod uses is in use through its kubelet volume's own global mount (kubelet left it mounted), and
 * the refusal says that instead of naming pods that are not there.
 */
function inUseRefusal(s: Snapshot, x: Session): Plan['refusals'][number] {
  if (x.pods.length > 0) {
    const commands = kubectlDeletePods(s.kubelet.pods, x.pods);
    return {
      id: 'in-use',
      reason: `session ${x.sid} (${x.portal}) is in use by ${podsPhrase(s.kubelet.pods, x.pods)}`,
      hint: `delete the ${x.pods.length === 1 ? 'pod' : 'pods'} first; kubelet logs out by itself when the last volume of the target goes`,
      ...(commands.length > 0 ? { commands } : {}),
      overridable: false,
    };
  }
  const mounted = x.kubeletVolumes.filter((p) => s.kubelet.volumes.some((v) => v.path === p && v.mounted));
  return {
    id: 'in-use',
    reason:
      mounted.length > 0
        ? `session ${x.sid} (${x.portal}) is in use only by its own kubelet global mount ${mounted.join(', ')}: no pod uses it`
        : `session ${x.sid} (${x.portal}) is in use: ${x.reasons[0] ?? 'its devices are in use'}`,
    hint:
      mounted.length > 0
        ? 'clean up the kubelet volume instead (it unmounts the global dir, then logs out)'
        : 'release what uses its devices first (see its reasons)',
    overridable: false,
  };
}

/** Adds device teardown + logout + record delete + clone delete for the sessions. */
export function addSessionTeardown(plan: Plan, s: Snapshot, sessions: readonly Session[]): void {
  addSessionsToBlast(plan, s, sessions);
  addDeviceTeardown(
    plan,
    s,
    sessions.flatMap((x) => x.devices.filter((d) => d.name !== undefined)),
  );
  for (const x of sessions) {
    for (const st of logoutSteps(x, x.sid)) addStep(plan, st);
    plan.expect!.push(pre('session-absent', `session ${x.sid} is logged out`, x.key));
    plan.expect!.push(pre('record-absent', `node record of ${x.portal} is deleted`, recordKey(x)));
    plan.undo.push(
      `${shellLine(discoverArgv(x.portal, x.iface))} && ${shellLine(loginArgv(x.portal, x.targetIqn, x.iface))}`,
    );
  }
  const keys = new Set(sessions.map((x) => x.key));
  const clones = [...new Set(sessions.map((x) => x.iface).filter(isClonedIface))];
  for (const iface of clones) {
    const otherUsers = s.sessions.filter((x) => x.iface === iface && !keys.has(x.key));
    if (otherUsers.length > 0) {
      plan.warnings.push(
        `iface ${iface} is kept: sessions ${otherUsers.map((x) => x.sid).join(', ')} still use it`,
      );
      continue;
    }
    addStep(plan, ifaceDeleteStep(iface));
    plan.expect!.push(pre('iface-absent', `iface ${iface} is deleted`, iface));
  }
}
