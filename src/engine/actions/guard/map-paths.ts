/**
 * No step leaves a multipath map without paths while the map exists: with `queue_if_no_path` every
 * I/O to a pathless map hangs (docs/kubelet-iscsi.md#device-deletion: kubelet flushes the maps
 * first). The map must be flushed by an earlier step; there is no override.
 */
import type { Snapshot } from '../../model.js';
import { deviceByKey, sessionByKey } from '../lookup.js';
import type { ResolvedEffect } from '../types.js';
import type { Invariant } from './types.js';

/** The sd names an effect removes from the kernel. */
function removedPaths(s: Snapshot, e: ResolvedEffect): string[] {
  if (e.kind === 'remove-device') {
    const name = deviceByKey(s, e.device)?.device.name;
    return name ? [name] : [];
  }
  if (e.kind === 'logout')
    return (sessionByKey(s, e.session)?.devices ?? []).flatMap((d) => (d.name ? [d.name] : []));
  return [];
}

export const mapPathsInvariant: Invariant = {
  id: 'map-paths',
  rule: 'No step leaves a multipath map without paths while the map exists: the map is flushed first, or the step is refused.',
  check(e, g) {
    const gone = new Set(removedPaths(g.s, e));
    if (gone.size === 0) return undefined;
    for (const m of g.s.multipath) {
      if (!m.slaves.some((n) => gone.has(n))) continue;
      if (m.slaves.every((n) => gone.has(n)))
        return {
          object: m.wwid,
          reason: `it would leave multipath map ${m.alias} (${m.name}) without paths (${m.slaves.join(', ')}); flush the map first (multipath -f)`,
        };
    }
    return undefined;
  },
};
