/**
 * Nothing mounted, held, open, swapped or used by a pod is removed, flushed, unmounted or logged
 * out — unless the admin's override names exactly that object. Uses are the engine's one wording
 * (lookup.ts deviceUses/mapUses), read from the fresh snapshot.
 */
import type { Snapshot } from '../../model.js';
import { podsPhrase } from '../../text/pod-names.js';
import {
  csiVolumeByPath,
  deviceByKey,
  deviceUses,
  mapByWwid,
  mapsOf,
  mapUses,
  podMountsOf,
  sessionByKey,
} from '../lookup.js';
import type { ResolvedEffect } from '../types.js';
import { effectObject } from './effect-object.js';
import type { Invariant } from './types.js';

/** A device's uses besides the multipath maps over it (their paths are the map-paths invariant's). */
function deviceBusy(s: Snapshot, key: string): string[] {
  const ref = deviceByKey(s, key);
  if (!ref) return [];
  const d = ref.device;
  const name = d.name ?? d.hctl;
  const maps = mapsOf(s, d);
  const out = deviceUses(s, d, { ignoreHolders: maps.map((m) => m.name) }).map((u) => `${name} is ${u.what}`);
  // A working path of a map in use carries that use's I/O (a failed one carries none: teardown.ts).
  if (d.state === undefined || d.state === 'running')
    for (const m of maps) {
      const uses = mapUses(s, m);
      if (uses.length > 0)
        out.push(`${name} is a working path of ${m.alias} (${m.name}), which is ${uses[0]!.what}`);
    }
  return out;
}

function sessionBusy(s: Snapshot, key: string): string[] {
  const x = sessionByKey(s, key);
  if (!x) return [];
  const out = x.pods.length > 0 ? [`session ${x.sid} is used by ${podsPhrase(s.kubelet.pods, x.pods)}`] : [];
  for (const d of x.devices) out.push(...deviceBusy(s, d.key));
  return out;
}

function mountBusy(s: Snapshot, path: string): string[] {
  const pods = podMountsOf(s, path).map((p) => p.path);
  const csi = csiVolumeByPath(s, path);
  if (csi?.stagingPath === path) pods.push(...csi.publish.filter((p) => p.mounted).map((p) => p.path));
  return pods.length > 0 ? [`pods still mount ${path}: ${pods.join(', ')}`] : [];
}

/** What uses the object an effect would remove, flush, unmount or log out; [] when nothing. */
function usesOfEffect(s: Snapshot, e: ResolvedEffect): string[] {
  switch (e.kind) {
    case 'logout':
      return sessionBusy(s, e.session);
    case 'remove-device':
      return deviceBusy(s, e.device);
    case 'flush-map': {
      const m = mapByWwid(s, e.map);
      return m ? mapUses(s, m).map((u) => `${m.name} (${m.alias}) is ${u.what}`) : [];
    }
    case 'unmount':
      return mountBusy(s, e.path);
    default:
      return [];
  }
}

export const inUseInvariant: Invariant = {
  id: 'in-use',
  rule: 'Nothing mounted, held, open, swapped or used by a pod is removed, flushed, unmounted or logged out, unless the admin overrode the refusal for exactly that object.',
  check(e, g) {
    const uses = usesOfEffect(g.s, e);
    if (uses.length === 0) return undefined;
    return { object: effectObject(e), reason: uses.join('; '), overridable: true };
  },
};
