/**
 * flush: `multipath -f /dev/dm-N` for one map (docs/kubelet-iscsi.md#device-deletion, docs/field-incidents.md#3-multipath-map-with-failed-paths and #4-busy-or-map-in-use). Refused while the map is mounted,
 * held (kpartx/LVM), swap or open by a loop device ("map in use" in the field).
 */

import type { Snapshot } from '../model.js';
import { allDevices, findMap, mapUses } from './lookup.js';
import { oneRefInput } from './one-ref.js';
import { addStep, addUnique, destructive, deviceBlast, flushMapStep, newPlan, pre } from './plan-kit.js';
import { refusalOfUse } from './teardown.js';
import type { ActionDef } from './types.js';

interface FlushInput {
  wwid: string;
}

export const flushAction: ActionDef<FlushInput> = {
  id: 'flush',
  title: 'Flush multipath map',
  key: 'f',
  scopes: ['multipath'],
  destructive: true,
  summary: 'Flush (remove) an unused multipath map (multipath -f)',
  ...oneRefInput('flush', '<dm-N|alias|wwid>', (s, ref) => ({ wwid: findMap(s, ref).wwid })),
  cliOptions: [],
  examples: ['iscsi-console flush mpatha --write', 'iscsi-console flush dm-0 --dry-run'],
  plan(input, s: Snapshot, ctx) {
    const m = findMap(s, input.wwid);
    const plan = newPlan('flush', `Flush ${m.alias}`, `${m.alias} (${m.name}) wwid ${m.wwid}`, ctx);
    destructive(plan, 'high', m.alias);
    addUnique(plan.blastRadius.maps, `${m.name} ${m.alias}`);
    addUnique(plan.blastRadius.mounts, ...m.mountpoints);
    plan.before.push(m.wwid);
    const paths = allDevices(s).filter((x) => x.device.name && m.slaves.includes(x.device.name));
    for (const d of paths) addUnique(plan.blastRadius.devices, deviceBlast(d.device));
    plan.lockKeys = [...new Set(paths.map((d) => d.session.targetIqn))];
    for (const u of mapUses(s, m)) {
      const hint = `release ${m.alias} first (findmnt -S /dev/${m.name}; ls /sys/block/${m.name}/holders)`;
      plan.refusals.push(refusalOfUse(`${m.name} (${m.alias})`, u, hint));
    }
    addStep(plan, flushMapStep(m));
    plan.expect!.push(pre('map-absent', `${m.alias} is gone`, m.wwid));
    plan.undo.push(`multipath -r   # or: multipath ${m.wwid}`);
    return plan;
  },
};
