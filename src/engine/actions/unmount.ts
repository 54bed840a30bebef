/**
 * unmount: kubelet's own volume mounts only (kubelet-mounts.ts) — the global mount of a volume
 * (kubelet UnmountDevice, docs/kubelet-iscsi.md#call-sequence; a CSI staging path) and, with the
 * override, a pod's own mount of one. Anything else (/proc, /sys, /dev, /var/lib/docker, a backup
 * mount) is refused outright: this tool repairs what kubelet left, and unmounting the node's own
 * filesystems takes the node or its container runtime down. A global mount is refused while pods'
 * own mounts of it remain (they keep the filesystem in use), unless forced.
 */
import { UserError } from '../errors.js';
import type { Mount, Snapshot } from '../model.js';
import { kubectlDeletePods, podLabel, podsPhrase } from '../text/pod-names.js';
import { type KubeletMountPoint, kubeletMountAt } from './kubelet-mounts.js';
import { noExtraPositionals } from './one-ref.js';
import { addStep, addUnique, destructive, newPlan, pre, unmountStep } from './plan-kit.js';
import type { ActionDef, Plan, PlanStep } from './types.js';

interface UnmountInput {
  path: string;
}

/** Not one of kubelet's volume mounts: refused whatever the admin types. */
function refuseForeign(plan: Plan, m: Mount): void {
  plan.refusals.push({
    id: 'not-kubelet-mount',
    reason:
      `${m.mountPoint} (${m.fsType} from ${m.source}) is not a kubelet volume mount: unmount takes only ` +
      "kubelet's own mounts of iSCSI and CSI volumes (a volume's global or staging mount, a pod's volume mount); " +
      "unmounting the node's own filesystems can take the node, its container runtime or a service with it",
    hint: 'see iscsi-console status (kubelet volumes, CSI volumes) for what it can unmount; anything else is umount(8) by hand',
    overridable: false,
  });
}

/** A pod's own mount of a volume: only with the override, naming the pod. */
function podMountStep(plan: Plan, s: Snapshot, km: KubeletMountPoint): PlanStep {
  const pod = podLabel(s.kubelet.pods, km.podUid!);
  const podCommands = kubectlDeletePods(s.kubelet.pods, [km.podUid!]);
  addUnique(plan.blastRadius.pods, pod);
  plan.refusals.push({
    id: 'pod-volume',
    reason: `${km.path} is pod ${pod}'s own mount of volume ${km.volume}: unmounting it pulls the volume out from under the pod, whose writes then land on the node's disk`,
    hint: 'delete or evict the pod (kubelet unmounts it itself); override only if the pod is gone for good',
    ...(podCommands.length > 0 ? { commands: podCommands } : {}),
    overridable: true,
    objects: [km.path],
  });
  return {
    ...unmountStep(km.path, true),
    why: `unmount pod ${pod}'s mount of ${km.volume} (forced: the pod may still use it)`,
  };
}

/** A volume's global (staging) mount: refused while pods' own mounts of it remain, unless forced. */
function globalMountStep(plan: Plan, s: Snapshot, km: KubeletMountPoint): PlanStep {
  const pods = km.podMounts;
  if (pods.length > 0) {
    addUnique(plan.blastRadius.pods, ...pods.map((p) => podLabel(s.kubelet.pods, p.podUid)));
    const uids = pods.map((p) => p.podUid);
    const commands = kubectlDeletePods(s.kubelet.pods, uids);
    plan.refusals.push({
      id: 'pod-mounts',
      reason: `${podsPhrase(s.kubelet.pods, uids)} still ${new Set(uids).size === 1 ? 'bind-mounts' : 'bind-mount'} ${km.path}: ${pods.map((p) => p.path).join(', ')}`,
      hint: 'delete or evict the pods first (kubelet then unmounts itself); --force unmounts only the global mount',
      ...(commands.length > 0 ? { commands } : {}),
      overridable: true,
      objects: [km.path],
    });
  }
  return unmountStep(km.path, pods.length > 0);
}

export const unmountAction: ActionDef<UnmountInput> = {
  id: 'unmount',
  title: 'Unmount',
  key: 'u',
  scopes: ['volume'],
  destructive: true,
  summary:
    "Unmount a kubelet volume mount (global or CSI staging; refused while pod mounts remain, unless --force; a pod's own mount only with --force)",
  usage: 'unmount <mount-path>',
  cliOptions: [],
  examples: [
    'iscsi-console unmount /var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.1:3260-iqn.2024-01.lab.example:t1-lun-1 --write',
  ],
  inputFromCli(positionals) {
    const [path] = positionals;
    if (path === undefined || !path.startsWith('/'))
      throw new UserError('unmount needs an absolute <mount-path>');
    noExtraPositionals('unmount', positionals, ['<mount-path>']);
    return { path: path.length > 1 ? path.replace(/\/+$/, '') : path };
  },
  inputFromSelection(sel) {
    return { path: sel.key };
  },
  plan(input, s: Snapshot, ctx) {
    const path = input.path;
    const mount = s.mounts.find((m) => m.mountPoint === path);
    if (!mount)
      throw new UserError(`${path} is not a mount point`, 'see iscsi-console status for mounted volumes');
    const plan = newPlan('unmount', 'Unmount', path, ctx);
    destructive(plan, 'medium', s.node.hostname);
    addUnique(plan.blastRadius.mounts, path);
    const km = kubeletMountAt(s, path);
    if (!km) {
      refuseForeign(plan, mount);
      return plan;
    }
    if (km.iqn) plan.lockKeys = [km.iqn];
    addUnique(plan.blastRadius.kubeletVolumes, km.volume);
    addStep(plan, km.kind === 'pod' ? podMountStep(plan, s, km) : globalMountStep(plan, s, km));
    plan.expect!.push(pre('not-mounted', `${path} is unmounted`, path));
    plan.undo.push(`mount -t ${mount.fsType} ${mount.source} ${path}`);
    return plan;
  },
};
