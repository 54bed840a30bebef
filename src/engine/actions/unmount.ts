/**
 * unmount: the global mount of a kubelet volume (kubelet UnmountDevice, docs/kubelet-iscsi.md#call-sequence). Refused while
 * pod bind mounts of it remain (they keep the filesystem in use), unless forced.
 */
import { UserError } from '../errors.js';
import type { Snapshot } from '../model.js';
import { findVolume, podMountsOf } from './lookup.js';
import { noExtraPositionals } from './one-ref.js';
import { addStep, addUnique, destructive, newPlan, pre, unmountStep } from './plan-kit.js';
import type { ActionDef } from './types.js';

export interface UnmountInput {
  path: string;
}

export const unmountAction: ActionDef<UnmountInput> = {
  id: 'unmount',
  title: 'Unmount',
  key: 'u',
  scopes: ['volume'],
  destructive: true,
  summary: 'Unmount a kubelet global mount (refused while pod bind mounts remain, unless --force)',
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
    return { path: path.replace(/\/+$/, '') };
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
    const vol = findVolume(s, path);
    if (vol) {
      plan.lockKeys = [vol.iqn];
      addUnique(plan.blastRadius.kubeletVolumes, vol.path);
      addUnique(plan.blastRadius.pods, ...vol.pods);
    } else {
      plan.warnings.push(`${path} is not a kubelet iSCSI global mount`);
    }
    const pods = podMountsOf(s, path);
    if (pods.length > 0) {
      addUnique(plan.blastRadius.pods, ...pods.map((p) => p.podUid));
      plan.refusals.push({
        id: 'pod-mounts',
        reason: `pods still bind-mount ${path}: ${pods.map((p) => p.path).join(', ')}`,
        hint: 'delete or evict the pods first (kubelet then unmounts itself); --force unmounts only the global mount',
        overridable: true,
        objects: [path],
      });
    }
    addStep(plan, unmountStep(path, pods.length > 0));
    plan.expect!.push(pre('not-mounted', `${path} is unmounted`, path));
    plan.undo.push(`mount -t ${mount.fsType} ${mount.source} ${path}`);
    return plan;
  },
};
