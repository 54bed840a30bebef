/**
 * Unmount only kubelet's own volume mount points: the global mounts of in-tree iSCSI volumes and
 * their block map paths (`plugins/kubernetes.io/iscsi/…`), CSI staging mounts
 * (`plugins/kubernetes.io/csi/…`), and — only with the admin's override for that path — a pod's
 * own volume mount (`pods/<uid>/volumes/…`, `pods/<uid>/volumeDevices/…`), as the snapshot's kubelet
 * and CSI readers found them (kubelet-mounts.ts, the unmount planner's own answer). Anything else
 * (`/var/lib/docker`, `/proc`, `/`) is refused. A mount (format-and-mount) goes only onto a global
 * dir of the iSCSI plugin.
 */
import { pluginDir } from '../../kubelet/paths.js';
import { kubeletMountAt } from '../kubelet-mounts.js';
import type { Invariant } from './types.js';

function cleanComponents(path: string): boolean {
  return (
    path.startsWith('/') &&
    path
      .slice(1)
      .split('/')
      .every((p) => p !== '' && p !== '.' && p !== '..')
  );
}

const inside = (path: string, dir: string) => path.startsWith(`${dir}/`);

export const unmountScopeInvariant: Invariant = {
  id: 'unmount-scope',
  rule: "Only kubelet's own volume mount points are unmounted (in-tree and CSI, global and pod); anything else is refused, and a pod's volume mount needs the admin's override for that path.",
  check(e, g) {
    if (e.kind === 'mount') {
      return cleanComponents(e.path) && inside(e.path, pluginDir(g.kubeletRoot))
        ? undefined
        : { object: e.path, reason: `${e.path} is not a global dir of kubelet's iSCSI plugin` };
    }
    if (e.kind !== 'unmount') return undefined;
    // The one answer the unmount planner asks too: a mount point kubelet's and the CSI readers found.
    const kind = cleanComponents(e.path) ? kubeletMountAt(g.s, e.path)?.kind : undefined;
    if (kind === undefined)
      return { object: e.path, reason: `${e.path} is not a kubelet volume mount point` };
    if (kind === 'pod')
      return { object: e.path, reason: `${e.path} is a pod's own volume mount`, overridable: true };
    return undefined;
  },
};
