/**
 * online: write `running` to `device/state` of an offline device — what iscsid does itself on a
 * recovery relogin (usr/iscsi_sysfs.c iscsi_sysfs_set_device_online; docs/field-incidents.md#2-devices-offline-or-blocked-after-a-target-outage).
 */

import type { Snapshot } from '../model.js';
import { fingerprintText } from '../text/fingerprint.js';
import { findDevice } from './lookup.js';
import { oneRefInput } from './one-ref.js';
import { addDeviceToBlast, addStep, deviceName, newPlan, pre, refuseSessionDown } from './plan-kit.js';
import { deviceAttrPath } from './sysfs-writes.js';
import type { ActionDef } from './types.js';

interface OnlineInput {
  deviceKey: string;
}

export const onlineAction: ActionDef<OnlineInput> = {
  id: 'online',
  title: 'Online device',
  key: 'o',
  scopes: ['device'],
  destructive: false,
  summary: 'Set an offline SCSI device back to running (echo running > device/state)',
  ...oneRefInput('online', '<sdX|H:C:T:L>', (s, ref) => ({ deviceKey: findDevice(s, ref).device.key })),
  cliOptions: [],
  examples: ['iscsi-console online sdc --write --yes'],
  plan(input, s: Snapshot, ctx) {
    const { device: d, session: x } = findDevice(s, input.deviceKey);
    const name = deviceName(d);
    const plan = newPlan('online', `Online ${name}`, `${name} (${d.hctl}) ${fingerprintText(d.key)}`, ctx);
    addDeviceToBlast(plan, s, d);
    plan.lockKeys = [x.targetIqn];
    if (d.state === 'running')
      plan.warnings.push(`${name} is already running; writing running again is harmless`);
    refuseSessionDown(plan, x, {
      consequence: 'the device would go offline again on the next I/O error',
      hint: 'wait for the portal to come back (iscsid onlines devices itself on recovery)',
      overridable: true,
    });
    const path = deviceAttrPath(d, 'state');
    addStep(plan, {
      id: `online:${name}`,
      why: `set ${name} from ${d.state ?? 'unknown'} to running`,
      // The kernel's store_state_field wants the trailing newline (EINVAL without it), as `echo` writes.
      write: { path, data: 'running\n' },
      effect: { kind: 'device-state', device: d.key, path },
      preconditions: [pre('device-is', `${d.key} is still ${name}`, d.key, name)],
    });
    plan.expect!.push(pre('device-state', `${name} is running`, d.key, 'running'));
    plan.undo.push(`echo offline > ${path}`);
    return plan;
  },
};
