/**
 * Per-device claims (docs/csi-drivers.md "Per-device claims"): which owner claims each LUN of a
 * session — the in-tree plugin's kubelet dir naming the LUN, a CSI volume mounted from it, a driver
 * file naming its LUN or device, Longhorn's device link — and, for claims that only know the target
 * (a kubelet CSI dir whose name is in the target name), every LUN with a block device.
 */
import { ISCSI_PLUGIN } from '../../kubelet/paths.js';
import type { DeviceClaim, KubeletVolume, ScsiDevice, SessionClaim } from '../../model.js';

/**
 * The session's devices with the claims of each one something claims: a copy of each claimed
 * device, `devices` itself when nothing claims any. (The read's basis is pointed at the copies,
 * assemble.ts, so a claimed LUN is not held twice.)
 */
export function withDeviceClaims(
  devices: readonly ScsiDevice[],
  inTree: readonly KubeletVolume[],
  claims: readonly SessionClaim[] | undefined,
): readonly ScsiDevice[] {
  if (inTree.length === 0 && !claims?.length) return devices;
  let out: ScsiDevice[] | undefined;
  for (let i = 0; i < devices.length; i++) {
    const d = devices[i]!;
    const dc = claimsOfDevice(d, inTree, claims);
    if (dc.length === 0) continue;
    out ??= devices.slice();
    out[i] = { ...d, claims: dc.slice() };
  }
  return out ?? devices;
}

function claimsOfDevice(
  d: ScsiDevice,
  inTree: readonly KubeletVolume[],
  claims: readonly SessionClaim[] | undefined,
): DeviceClaim[] {
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
  return dc;
}
