/**
 * Per-device claims (docs/csi-drivers.md "Per-device claims"): which owner claims each LUN of a
 * session — the in-tree plugin's kubelet dir naming the LUN, a CSI volume mounted from it, a driver
 * file naming its LUN or device, Longhorn's device link — and, for claims that only know the target
 * (a kubelet CSI dir whose name is in the target name), every LUN with a block device.
 */
import { ISCSI_PLUGIN } from '../../kubelet/paths.js';
import type { DeviceClaim, KubeletVolume, ScsiDevice, SessionClaim } from '../../model.js';
import { trimmed } from '../lists.js';

/**
 * Sets the claims of each of the session's devices that something claims. In place: the devices are
 * this read's own objects (a fresh read's, or the copies incremental.ts makes of kept ones, without
 * their old claims), as linkUsage already fills their mountpoints. A copy per claimed LUN kept both
 * objects alive (~1 MB at 4,000 LUNs, bench/README.md).
 */
export function addDeviceClaims(
  devices: readonly ScsiDevice[],
  inTree: readonly KubeletVolume[],
  claims: readonly SessionClaim[] | undefined,
): void {
  if (inTree.length === 0 && !claims?.length) return;
  for (const d of devices) {
    const dc: DeviceClaim[] = [];
    for (const v of inTree) {
      if (Number(v.lun) !== d.lun) continue;
      dc.push({
        owner: 'in-tree',
        driver: ISCSI_PLUGIN,
        mounted: v.mounted || v.pods.length > 0,
        why: `kubelet global dir ${v.path} names LUN ${v.lun}`,
      });
    }
    for (const c of claims ?? []) {
      if (c.luns ? !c.luns.includes(d.lun) : d.name === undefined) continue;
      const x: DeviceClaim = {
        owner: c.owner,
        driver: c.driver,
        mounted: c.mounted,
        why: c.luns ? c.why : `${c.why} (every LUN of the target)`,
      };
      if (c.pv) x.pv = c.pv;
      if (c.volumeHandle) x.volumeHandle = c.volumeHandle;
      dc.push(x);
    }
    if (dc.length > 0) d.claims = trimmed(dc);
  }
}
