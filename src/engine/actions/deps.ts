/**
 * Adapters over the shared naming helpers (src/engine/iscsi/*, src/engine/kubelet/paths.ts) in the
 * shapes the planners use; no second copies of the rules live here (portals: iscsi/portal.ts).
 */

import { kernelLunOf, byPathName as udevByPathName } from '../iscsi/lun.js';
import { makePDName, makeVDPDName } from '../kubelet/paths.js';

/** `/dev/disk/by-path` name of a target LUN over tcp (udev path_id of the kernel's LUN number). */
export function byPathName(portal: { address: string; port: number }, iqn: string, lun: number): string {
  return udevByPathName(portal.address, portal.port, iqn, kernelLunOf(lun));
}

/** kubelet makePDNameInternal / makeVDPDNameInternal (docs/kubelet-iscsi.md#paths). */
export function kubeletGlobalPath(
  kubeletRoot: string,
  mode: 'filesystem' | 'block',
  iface: string,
  portal: string,
  iqn: string,
  lun: string,
): string {
  return mode === 'block'
    ? makeVDPDName(kubeletRoot, iface, portal, iqn, lun)
    : makePDName(kubeletRoot, iface, portal, iqn, lun);
}
