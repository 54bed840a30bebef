/**
 * delete-device: remove SCSI devices — flush the maps built only from them, `blockdev --flushbufs`,
 * then `1` to `device/delete` (kubelet deleteDevices docs/kubelet-iscsi.md#device-deletion plus csi-lib-iscsi's flush, kubernetes-csi/csi-lib-iscsi iscsi/iscsi.go RemoveSCSIDevices).
 */

import { UserError } from '../errors.js';
import { deviceKernelLun } from '../iscsi/lun.js';
import type { Snapshot } from '../model.js';
import { findDevice } from './lookup.js';
import { destructive, deviceBlast, deviceName, newPlan } from './plan-kit.js';
import { hostScanPath, scanData } from './sysfs-writes.js';
import { addDeviceTeardown } from './teardown.js';
import type { ActionDef } from './types.js';

interface DeleteDeviceInput {
  deviceKeys: string[];
}

export const deleteDeviceAction: ActionDef<DeleteDeviceInput> = {
  id: 'delete-device',
  title: 'Delete SCSI device',
  key: 'x',
  scopes: ['device'],
  destructive: true,
  summary: 'Delete SCSI devices (flush their map, flush buffers, echo 1 > device/delete)',
  usage: 'delete-device <sdX|H:C:T:L>...',
  cliOptions: [],
  examples: [
    'iscsi-console delete-device sdc --write',
    'iscsi-console delete-device 2:0:0:1 3:0:0:1 --dry-run',
  ],
  inputFromCli(positionals, _o, s) {
    if (positionals.length === 0) throw new UserError('delete-device needs <sdX|H:C:T:L>...');
    return { deviceKeys: positionals.map((p) => findDevice(s, p).device.key) };
  },
  inputFromSelection(sel, s) {
    return { deviceKeys: [findDevice(s, sel.key).device.key] };
  },
  intentsFromSelections(sels, s) {
    // All marked devices at once: a map whose every path is marked is flushed before they go.
    return [{ deviceKeys: [...new Set(sels.map((sel) => findDevice(s, sel.key).device.key))] }];
  },
  plan(input, s: Snapshot, ctx) {
    const refs = input.deviceKeys.map((k) => findDevice(s, k));
    const names = refs.map((r) => deviceName(r.device));
    const plan = newPlan(
      'delete-device',
      `Delete ${names.join(', ')}`,
      refs.map((r) => deviceBlast(r.device)).join('; '),
      ctx,
    );
    destructive(plan, 'high', names.length === 1 ? names[0]! : s.node.hostname);
    plan.lockKeys = [...new Set(refs.map((r) => r.session.targetIqn))];
    addDeviceTeardown(
      plan,
      s,
      refs.map((r) => r.device),
    );
    for (const r of refs)
      plan.undo.push(`echo '${scanData(deviceKernelLun(r.device))}' > ${hostScanPath(r.device.host)}`);
    return plan;
  },
};
