/**
 * The device half of kubelet's teardown (docs/kubelet-iscsi.md#device-deletion, docs/field-incidents.md#1-session-left-after-the-pod-is-gone, docs/field-incidents.md#13-kernel-hang-on-logout-with-devices-present): for a set of SCSI devices, flush the
 * multipath maps built only from them, then delete each device — refusing anything mounted, held,
 * swapped or open. Shared by delete-device, logout and cleanup so the rules live in one place.
 */
import type { ScsiDevice, Snapshot } from '../model.js';
import { deviceUses, mapsOf, mapUses, type Use } from './lookup.js';
import { addDeviceToBlast, addStep, deleteDeviceSteps, deviceName, flushMapStep } from './plan-kit.js';
import type { Plan, Refusal } from './types.js';

/** The refusal a use raises: its kind is the refusal id (never read back from the wording). */
export function refusalOfUse(name: string, u: Use, hint: string): Refusal {
  return { id: u.kind, reason: `${name} is ${u.what}`, hint, overridable: false };
}

/**
 * Adds flush + delete steps for `devices` to the plan (and refusals when they are in use).
 * A map whose other paths stay is not flushed: deleting a failed path of a live map is how
 * multipath admins drop dead paths (docs/field-incidents.md#3-multipath-map-with-failed-paths); deleting a *working* path of a map in use is refused.
 */
export function addDeviceTeardown(plan: Plan, s: Snapshot, devices: readonly ScsiDevice[]): void {
  const names = new Set(devices.map((d) => d.name).filter((n): n is string => n !== undefined));
  const flushed = new Set<string>();
  const liveMapPaths = new Set<string>();
  // Mounts this plan unmounts in an earlier step do not count (cleanup: unmount → flush → delete).
  // …nor loop devices an earlier step releases (cleanup's UnmapDevice of a block volume).
  const unmounting = new Set(plan.steps.filter((st) => st.argv?.[0] === 'umount').map((st) => st.argv![1]!));
  for (const st of plan.steps)
    if (st.argv?.[0] === 'losetup' && st.argv[1] === '-d')
      unmounting.add(st.argv[2]!.replace(/^\/dev\//, ''));
  for (const d of devices) {
    addDeviceToBlast(plan, s, d);
    const maps = mapsOf(s, d);
    const ignoreHolders: string[] = [];
    for (const m of maps) {
      const allGoing = m.slaves.every((x) => names.has(x));
      if (allGoing) {
        ignoreHolders.push(m.name);
        if (!flushed.has(m.name)) {
          // Once per map, however many of its paths go (both sessions of a target: one refusal).
          for (const u of mapUses(s, m, unmounting)) {
            plan.refusals.push(
              refusalOfUse(
                `${m.name} (${m.alias})`,
                u,
                `unmount or stop what uses ${m.alias} first (findmnt -S /dev/${m.name}; ls /sys/block/${m.name}/holders)`,
              ),
            );
          }
          flushed.add(m.name);
          addStep(plan, flushMapStep(m));
          plan.undo.push(`multipath -r   # recreate ${m.alias} once its paths are back`);
        }
      } else if (d.state === 'running' && mapUses(s, m, unmounting).length > 0) {
        plan.refusals.push({
          id: 'held',
          reason: `${deviceName(d)} is a working path of ${m.alias} (${m.name}), which is in use`,
          hint: 'only failed paths of a map in use can be deleted; multipathd keeps using this one',
          overridable: false,
        });
      } else {
        ignoreHolders.push(m.name);
        liveMapPaths.add(d.key);
        plan.warnings.push(
          `${deviceName(d)} is one path of ${m.alias}; the map keeps its other paths (${m.slaves.filter((x) => !names.has(x)).join(', ')})`,
        );
      }
    }
    const mapRefused = maps.some((m) => !ignoreHolders.includes(m.name));
    const ignore = mapRefused ? maps.map((m) => m.name) : ignoreHolders;
    for (const u of deviceUses(s, d, { ignoreHolders: ignore, unmounting })) {
      plan.refusals.push(
        refusalOfUse(
          deviceName(d),
          u,
          `unmount it / release it first; see iscsi-console status for ${deviceName(d)}`,
        ),
      );
    }
  }
  for (const d of devices) {
    // Once its map is flushed the device has no holder left, so "unused" is checked strictly again.
    for (const st of deleteDeviceSteps(d, liveMapPaths.has(d.key))) addStep(plan, st);
    plan.expect!.push({ id: 'device-absent', text: `${deviceName(d)} is gone`, subject: d.key });
  }
}
