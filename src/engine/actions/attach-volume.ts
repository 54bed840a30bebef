/**
 * The volume's part of an attach, after every portal's login and scan (docs/kubelet-iscsi.md#attachdisk,
 * #format-and-mount, #iscsijson): wait for the multipath map, kubelet's global dir and iscsi.json,
 * then SafeFormatAndMount onto it.
 */
import { ifaceDeleteArgv } from '../iscsiadm/argv.js';
import { addStep, addUnique, pre, TIMEOUTS } from './plan-kit.js';
import type { Plan } from './types.js';

/**
 * Waits for a dm map over the paths (kubelet FindMultipathDeviceForDevice): up to 10 s with more
 * than one portal, else only a look. No path at all deletes the iface clone, as kubelet does.
 */
export function planFindMultipath(plan: Plan, portalCount: number, clone: string | undefined): void {
  const multiPortal = portalCount > 1;
  const timeoutMs = multiPortal ? 10_000 : 0;
  addStep(plan, {
    id: 'find-multipath',
    why: multiPortal
      ? 'wait up to 10 s for a dm map over the paths (/sys/block/dm-*/slaves, as kubelet looks for it)'
      : 'use a dm map over the path if multipathd made one, else the path itself',
    wait: { what: 'multipath map over the paths', timeoutMs },
    effect: { kind: 'none' },
    preconditions: [],
    dynamic: { kind: 'find-multipath', multiPortal, timeoutMs },
    ...(clone
      ? {
          onFailure: [
            {
              why: 'no path came up: delete the cloned iface (kubelet does this on 0 paths)',
              argv: ifaceDeleteArgv(clone),
              effect: { kind: 'iface-delete', iface: clone },
            },
          ],
        }
      : {}),
  });
}

/**
 * kubelet's global dir and its iscsi.json (`json`: iscsiJson's bytes), written before the mount so
 * kubelet can detach the volume later. A mounted FS volume hides the file under the mount
 * (docs/kubelet-iscsi.md#iscsijson), so it is verified only when not mounting.
 */
export function planMetadata(plan: Plan, globalPath: string, json: string, mounting: boolean): void {
  addStep(plan, {
    id: 'mkdir-global',
    why: 'create the kubelet global dir (mode 0750, as kubelet)',
    fs: { op: 'mkdir', path: globalPath },
    effect: { kind: 'mkdir', path: globalPath },
    preconditions: [],
    doneIf: [pre('path-present', `${globalPath} exists`, globalPath)],
  });
  addStep(plan, {
    id: 'write-iscsi-json',
    why: 'write iscsi.json exactly as kubelet writes it, before the mount, so kubelet can detach it later',
    fs: { op: 'write-json', path: `${globalPath}/iscsi.json`, data: json },
    effect: { kind: 'write-file', path: `${globalPath}/iscsi.json`, mode: 0o644 },
    preconditions: [],
    doneIf: [pre('mounted', `${globalPath} is already mounted (the file would be hidden)`, globalPath)],
  });
  if (!mounting) plan.expect!.push(pre('path-present', 'iscsi.json is written', `${globalPath}/iscsi.json`));
}

/** What the mount takes: the filesystem, read-only, and the admin's mount options. */
interface MountSpec {
  fsType: string;
  readOnly: boolean;
  mountOptions: readonly string[];
}

/**
 * SafeFormatAndMount onto the global path: blkid, mkfs only on a blank device, fsck before a rw
 * mount, then mount; verified as mounted, and the first undo is the unmount.
 */
export function planFormatAndMount(plan: Plan, globalPath: string, m: MountSpec): void {
  const options = [...(m.readOnly ? ['ro'] : []), ...m.mountOptions, 'defaults'];
  addStep(plan, {
    id: 'format-and-mount',
    why: `SafeFormatAndMount: blkid -p; format with mkfs.${m.fsType} ONLY if blkid finds no filesystem and no partition table; fsck -a before a rw mount; then mount`,
    argv: ['mount', '-t', m.fsType, '-o', options.join(','), '<device>', globalPath],
    effect: { kind: 'mount', path: globalPath },
    timeoutMs: TIMEOUTS.umount,
    preconditions: [pre('not-mounted', `${globalPath} is not mounted`, globalPath)],
    dynamic: {
      kind: 'format-and-mount',
      target: globalPath,
      fsType: m.fsType,
      readOnly: m.readOnly,
      mountOptions: options,
    },
  });
  plan.expect!.push(pre('mounted', `${globalPath} is mounted`, globalPath));
  plan.undo.unshift(`iscsi-console unmount ${globalPath}`);
  addUnique(plan.blastRadius.mounts, globalPath);
}
