/**
 * cleanup: the whole safe sequence for a stale or orphaned session (or an orphaned kubelet dir),
 * computed from the snapshot — unmount → multipath -f → delete devices → logout → delete node
 * record → cloned iface → remove the orphaned kubelet dir (unlink iscsi.json, rmdir; never
 * recursive). docs/field-incidents.md#1-session-left-after-the-pod-is-gone is the incident; kubelet's own order is docs/kubelet-iscsi.md#detachdisk.
 */
import { UserError } from '../errors.js';
import type { KubeletVolume, Session, Snapshot } from '../model.js';
import { downScopeOf } from '../snapshot/outages.js';
import { clockTime, stuckProbeOf } from '../snapshot/stuck.js';
import { kubectlDeletePods, podsPhrase } from '../text/pod-names.js';
import { addCsiRefusals, addDriverFileSteps, REMOVE_DRIVER_FILES } from './csi-claims.js';
import { planCsiVolume } from './csi-dirs.js';
import { csiVolumeByPath, findSession, findVolume, podMountsOf } from './lookup.js';
import { noExtraPositionals } from './one-ref.js';
import { refuseEscapingPaths } from './path-guard.js';
import {
  addStep,
  addUnique,
  destructive,
  newPlan,
  pre,
  removeKubeletDirSteps,
  unmountStep,
} from './plan-kit.js';
import { addSessionRefusals, addSessionTeardown } from './session-teardown.js';
import { addDeviceTeardown } from './teardown.js';
import type { ActionContext, ActionDef, Plan } from './types.js';
import { unmapBlockVolumeSteps } from './unmap-device.js';

interface CleanupInput {
  /** A session (its target's sessions through the same iface go with it)… */
  sessionKey?: string;
  /** …or several (the console's marked rows), planned together: their maps flushed before their last path… */
  sessionKeys?: string[];
  /** …or one kubelet global dir… */
  volumePath?: string;
  /** …or a CSI volume's leftover kubelet dirs (its staging or a publish path; docs/csi-drivers.md). */
  csiPath?: string;
  /** Also unlink a CSI driver's own metadata file (the session's, or the CSI volume's) while the driver runs (docs/csi-drivers.md). */
  removeDriverFiles?: boolean;
}

/**
 * Outage guard: a session that is down is not garbage until its portal is known to be gone for good.
 * When every session to its portal is down, the portal is down (network, target restart): iscsid
 * logs back in when it returns, and cleaning up would turn a blip into data loss for every pod on
 * it. When only this session is down (the portal's other sessions are up), the target may have
 * dropped it or be restarting it: refused too, saying so. The rule lives in the snapshot
 * (src/engine/snapshot/outages.ts); both refusals can be overridden.
 */
/**
 * A down session whose portal answered the live probe is stuck, not waiting for its array: its
 * cleanup needs no override (docs/stuck-sessions.md). The plan says why, and each of its logouts
 * carries the precondition the executor re-checks on the fresh snapshot: the session is up again
 * or still stuck behind a portal that answers — never a portal that went silent since.
 */
function addStuckNotes(plan: Plan, s: Snapshot, sessions: readonly Session[]): void {
  for (const x of sessions) {
    const probe = stuckProbeOf(s, x);
    if (!probe) continue;
    plan.warnings.push(
      `session ${x.sid} is ${x.state} while its portal ${x.portal} answers (probed ${clockTime(probe.at)}: ${probe.detail}): stuck, not an outage, so no override is needed`,
    );
    for (const st of plan.steps)
      if (st.effect.kind === 'logout' && st.effect.session === x.key)
        st.preconditions.push(
          pre(
            'session-not-outage',
            `session ${x.sid} is up, or stuck while its portal answers the probe`,
            x.key,
          ),
        );
  }
}

function outageRefusals(s: Snapshot, sessions: readonly Session[]): Plan['refusals'] {
  const out: Plan['refusals'] = [];
  const portals = new Set<string>();
  for (const x of sessions) {
    // Stuck, not an outage: the live probe proved the portal answers (stuckNotes says so instead).
    if (stuckProbeOf(s, x)) continue;
    const down = downScopeOf(s, x);
    if (!down) continue;
    if (down.scope === 'portal') {
      if (portals.has(down.outage.portal)) continue;
      portals.add(down.outage.portal);
      out.push({
        id: 'outage',
        reason: `${down.outage.summary}: the whole portal is down, this looks like a portal outage, not stale state`,
        hint: 'wait for the portal to come back (iscsid recovers the sessions); override only if the target is gone for good',
        overridable: true,
      });
    } else {
      out.push({
        id: 'session-down',
        reason: `${down.summary}: only this session is down, not the whole portal`,
        hint: 'iscsid keeps retrying its login; check the target for this IQN, and override only if it is gone for good',
        overridable: true,
      });
    }
  }
  return out;
}

function volumeSteps(plan: Plan, s: Snapshot, vols: readonly KubeletVolume[]): KubeletVolume[] {
  const removable: KubeletVolume[] = [];
  for (const v of vols) {
    addUnique(plan.blastRadius.kubeletVolumes, v.path);
    const pods = podMountsOf(s, v.path);
    if (v.pods.length > 0 || pods.length > 0) {
      const uids = [...new Set([...v.pods, ...pods.map((p) => p.podUid)])];
      const commands = kubectlDeletePods(s.kubelet.pods, uids);
      plan.refusals.push({
        id: 'in-use',
        reason: `kubelet volume ${v.path} is used by ${podsPhrase(s.kubelet.pods, uids)}`,
        hint: `delete the ${uids.length === 1 ? 'pod' : 'pods'} first; kubelet tears the volume down itself`,
        ...(commands.length > 0 ? { commands } : {}),
        overridable: false,
      });
      continue;
    }
    if (v.mounted) {
      addUnique(plan.blastRadius.mounts, v.path);
      addStep(plan, unmountStep(v.path, false));
    }
    // Leftover per-pod entries of a block volume (their pods are gone, checked above): unmapped
    // the way kubelet's UnmapDevice does, before the devices go.
    if (v.mode === 'block') for (const st of unmapBlockVolumeSteps(plan, s, v)) addStep(plan, st);
    removable.push(v);
  }
  return removable;
}

/** `--remove-driver-files` (the console's plan toggle) as a session's or a CSI volume's cleanup input. */
function driverFilesOption(o: Readonly<Record<string, unknown>>): { removeDriverFiles?: true } {
  return o[REMOVE_DRIVER_FILES] === true ? { removeDriverFiles: true } : {};
}

export const cleanupAction: ActionDef<CleanupInput> = {
  id: 'cleanup',
  title: 'Clean up',
  key: 'c',
  scopes: ['session', 'volume', 'csi-volume'],
  destructive: true,
  summary:
    'Clean up a stale/orphaned session or kubelet dir: unmount, flush, delete devices, logout, forget, rmdir',
  usage: 'cleanup <sid|kubelet-dir|csi-volume-path>',
  cliOptions: [
    {
      name: REMOVE_DRIVER_FILES,
      type: 'boolean',
      description:
        "cleanup: also unlink a CSI driver's metadata file of the session, or of the CSI volume, while the driver runs",
      toggle: "also remove the CSI driver's own file",
    },
  ],
  examples: [
    'iscsi-console cleanup 7 --dry-run',
    'iscsi-console cleanup /var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.1:3260-iqn.2024-01.lab.example:t1-lun-1 --write',
    'iscsi-console cleanup /var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount --dry-run',
  ],
  inputFromCli(positionals, o, s) {
    const [ref] = positionals;
    const extra = driverFilesOption(o);
    if (ref === undefined) throw new UserError('cleanup needs <sid|kubelet-dir|csi-volume-path>');
    noExtraPositionals('cleanup', positionals, ['<sid|kubelet-dir|csi-volume-path>']);
    if (ref.startsWith('/')) {
      const v = findVolume(s, ref);
      if (v) return { volumePath: v.path, ...extra };
      if (csiVolumeByPath(s, ref)) return { csiPath: ref.replace(/\/+$/, ''), ...extra };
      throw new UserError(
        `${ref} is not a kubelet iSCSI dir or a CSI volume's staging or publish path`,
        'see iscsi-console status (kubelet volumes, CSI volumes)',
      );
    }
    return { sessionKey: findSession(s, ref).key, ...extra };
  },
  inputFromSelection(sel, s, o = {}) {
    if (sel.scope === 'csi-volume') return { csiPath: sel.key, ...driverFilesOption(o) };
    if (sel.scope === 'volume') return { volumePath: sel.key };
    return { sessionKey: findSession(s, sel.key).key, ...driverFilesOption(o) };
  },
  intentsFromSelections(sels, s, o = {}) {
    // Every marked session in one plan (one teardown sees every path of a map); each kubelet dir
    // is its own cleanup, combined after (combine.ts keeps the flush before a map's last path).
    const keys = new Set(sels.filter((x) => x.scope === 'session').map((x) => findSession(s, x.key).key));
    const sessionKeys = s.sessions.filter((x) => keys.has(x.key)).map((x) => x.key);
    const volumes = sels.filter((x) => x.scope === 'volume').map((x) => ({ volumePath: x.key }));
    // A CSI volume's leftover dirs: the planner `cleanup <csi-volume-path>` runs (csi-dirs.ts).
    const csi = sels
      .filter((x) => x.scope === 'csi-volume')
      .map((x) => ({ csiPath: x.key, ...driverFilesOption(o) }));
    return [
      ...(sessionKeys.length > 0 ? [{ sessionKeys, ...driverFilesOption(o) }] : []),
      ...volumes,
      ...csi,
    ];
  },
  plan(input, s: Snapshot, ctx) {
    if (input.volumePath !== undefined) return planVolume(input.volumePath, s, ctx);
    if (input.csiPath !== undefined) return planCsiVolume(input.csiPath, s, ctx, input);
    const keys = input.sessionKeys ?? (input.sessionKey === undefined ? [] : [input.sessionKey]);
    if (keys.length === 0) throw new UserError('cleanup needs a session or a kubelet dir');
    return planSessions(
      keys.map((k) => findSession(s, k)),
      s,
      ctx,
      input,
    );
  },
};

/**
 * Cleanup of sessions: each with its target's sessions through the same iface, all in one plan so
 * the device teardown sees every path that goes (a map is flushed before its last path).
 */
function planSessions(
  chosen: readonly Session[],
  s: Snapshot,
  ctx: ActionContext,
  input: CleanupInput,
): Plan {
  const first = chosen[0]!;
  const inGroup = (x: Session) => chosen.some((c) => c.targetIqn === x.targetIqn && c.iface === x.iface);
  const sessions = s.sessions.filter(inGroup);
  const targets = [...new Set(sessions.map((x) => x.targetIqn))];
  const one = targets.length === 1 && new Set(sessions.map((x) => x.iface)).size === 1;
  const plan = one
    ? newPlan(
        'cleanup',
        'Clean up session',
        `session ${first.sid} ${first.targetIqn} @ ${sessions.map((x) => x.portal).join(', ')} (${first.verdict}, ${first.health})`,
        ctx,
      )
    : newPlan(
        'cleanup',
        'Clean up sessions',
        `sessions ${sessions.map((x) => x.sid).join(', ')} (${targets.join(', ')})`,
        ctx,
      );
  destructive(plan, 'high', one ? String(first.sid) : s.node.hostname);
  plan.lockKeys = targets;
  addSessionRefusals(plan, s, sessions);
  addCsiRefusals(plan, s, sessions);
  plan.refusals.push(...outageRefusals(s, sessions));
  const volPaths = new Set(sessions.flatMap((x) => x.kubeletVolumes));
  const vols = s.kubelet.volumes.filter((v) => volPaths.has(v.path));
  const removable = volumeSteps(plan, s, vols);
  addSessionTeardown(plan, s, sessions);
  addStuckNotes(plan, s, sessions);
  addDriverFileSteps(plan, s, sessions, input);
  for (const v of removable) {
    for (const st of removeKubeletDirSteps(v)) addStep(plan, st);
    plan.expect!.push(pre('path-absent', `${v.path} is removed`, v.path));
  }
  return refuseEscapingPaths(plan, ctx);
}

/** Cleanup of one kubelet dir: logs out only when no other kubelet dir keeps the target (isSessionBusy). */
function planVolume(path: string, s: Snapshot, ctx: Parameters<ActionDef['plan']>[2]): Plan {
  const v = findVolume(s, path);
  if (!v) throw new UserError(`${path} is not a kubelet iSCSI dir`);
  const plan = newPlan('cleanup', 'Clean up kubelet volume', `${v.path} (${v.iqn} LUN ${v.lun})`, ctx);
  destructive(plan, 'high', s.node.hostname);
  plan.lockKeys = [v.iqn];
  const sessions = s.sessions.filter((x) => v.sessions.includes(x.sid));
  const others = s.kubelet.volumes.filter(
    (o) => o.path !== v.path && o.iqn === v.iqn && o.portal === v.portal,
  );
  const removable = volumeSteps(plan, s, [v]);
  plan.refusals.push(...outageRefusals(s, sessions));
  if (others.length > 0 || sessions.some((x) => x.kubeletVolumes.some((p) => p !== v.path))) {
    // Like kubelet's isSessionBusy: other dirs of the target keep the session; drop only this LUN.
    plan.warnings.push(
      `the session stays logged in: other kubelet dirs use ${v.iqn} (${others.map((o) => o.path).join(', ') || 'same target'})`,
    );
    const lun = Number(v.lun);
    addDeviceTeardown(
      plan,
      s,
      sessions.flatMap((x) => x.devices.filter((d) => d.lun === lun && d.name !== undefined)),
    );
  } else {
    // The session's only kubelet volume is this one: its pods (checked above) are what "in use"
    // would mean; a verdict of in-use that comes from this very mount does not block its cleanup.
    addSessionRefusals(
      plan,
      s,
      sessions.filter((x) => x.verdict === 'foreign' || (x.verdict === 'in-use' && x.pods.length > 0)),
    );
    for (const x of sessions.filter((x) => x.verdict === 'in-use' && x.pods.length === 0)) {
      plan.warnings.push(
        `session ${x.sid} counts as in use only through ${v.path}, which this cleanup unmounts`,
      );
    }
    addSessionTeardown(plan, s, sessions);
  }
  for (const st of removeKubeletDirSteps(v)) addStep(plan, st);
  if (removable.length > 0) plan.expect!.push(pre('path-absent', `${v.path} is removed`, v.path));
  return refuseEscapingPaths(plan, ctx);
}
