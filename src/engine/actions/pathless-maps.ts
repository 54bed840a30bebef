/**
 * Would these steps, in this order, leave a multipath map without paths while the map still
 * exists? A map whose last path goes without `multipath -f` first stays as a 0-path map; with
 * `queue_if_no_path` every I/O to it hangs (docs/field-incidents.md#3-multipath-map-with-failed-paths).
 * kubelet's deleteDevices flushes every map over a LUN's paths before deleting them
 * (docs/kubelet-iscsi.md#device-deletion); one planner keeps that order by construction
 * (teardown.ts), and this check holds plans built from several parts to it before consent.
 *
 * Steps are recognised by the very builders that make them (flushMapStep, deleteDeviceSteps'
 * device/delete write, logoutArgv), never by reading their text back.
 */
import { isDeepStrictEqual } from 'node:util';
import { logoutArgv } from '../iscsiadm/argv.js';
import type { MultipathMap, Snapshot } from '../model.js';
import { flushMapStep } from './plan-kit.js';
import { deviceAttrPath } from './sysfs-writes.js';
import type { PlanStep } from './types.js';

/** What the check reads of a snapshot: the maps and the sessions with their devices. */
export type MapPaths = Pick<Snapshot, 'multipath' | 'sessions'>;

/** The map a step of `steps` would leave without paths, and the step that takes its last one. */
interface PathlessMap {
  map: MultipathMap;
  stepId: string;
}

/** The sd names a step removes from the node (a device delete, or every device of a logged-out session). */
function removedBy(st: PlanStep, s: MapPaths): string[] {
  if (st.write?.data === '1') {
    const d = s.sessions
      .flatMap((x) => x.devices)
      .find((d) => d.name && deviceAttrPath(d, 'delete') === st.write!.path);
    return d?.name ? [d.name] : [];
  }
  if (!st.argv) return [];
  const x = s.sessions.find((x) => isDeepStrictEqual(st.argv, logoutArgv(x.portal, x.targetIqn, x.iface)));
  return x ? x.devices.flatMap((d) => (d.name ? [d.name] : [])) : [];
}

/** Every map (with paths on `s`) that `steps`, run in order, would leave with none while it exists. */
export function pathlessMaps(steps: readonly PlanStep[], s: MapPaths): PathlessMap[] {
  const live = new Map(
    s.multipath.filter((m) => m.slaves.length > 0).map((m) => [m.name, new Set(m.slaves)]),
  );
  const out: PathlessMap[] = [];
  for (const st of steps) {
    for (const m of s.multipath) {
      if (live.has(m.name) && st.argv && isDeepStrictEqual(st.argv, flushMapStep(m).argv))
        live.delete(m.name);
    }
    const gone = removedBy(st, s);
    if (gone.length === 0) continue;
    for (const [name, paths] of live) {
      for (const g of gone) paths.delete(g);
      if (paths.size > 0) continue;
      live.delete(name);
      out.push({ map: s.multipath.find((m) => m.name === name)!, stepId: st.id });
    }
  }
  return out;
}
