/**
 * A volume kubelet attached while one of its two portals was down (kubelet's AttachDisk carries on
 * with the portals whose login worked, pkg/volume/iscsi/iscsi_util.go): a block volume (so its
 * iscsi.json is readable) listing both portals, one session, then the portal back up.
 */
import { type SimEnv, simEnv } from '../actions/helpers.js';

export const IQN = 'iqn.2026-01.lab.example:mp-volume';
export const P1 = '10.0.0.10:3260';
export const P2 = '10.0.0.11:3260';
export const POD = '11111111-2222-4333-8444-555555555555';
export const GLOBAL = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/volumeDevices/iface-default/${P1}-${IQN}-lun-1`;

/**
 * The volume attached with P2 down, then P2 back up. `keepDown` leaves P2 down; `pod` maps the volume
 * into a pod (its path then held by the pod's bind mount and loop device, as kubelet leaves it).
 */
export async function degradedVolume(o: { keepDown?: boolean; pod?: boolean } = {}): Promise<SimEnv> {
  const e = await simEnv('empty');
  e.host.sim.addTarget({
    iqn: IQN,
    portals: [P1, P2],
    luns: [
      { lun: 1, sizeBytes: 1 << 30 },
      { lun: 3, sizeBytes: 1 << 30 },
    ],
  });
  e.host.sim.portalDown(P2);
  await e.host.sim.kubeletAttach({
    portals: [P1, P2],
    iqn: IQN,
    lun: 1,
    volName: 'pv-x',
    podUIDs: o.pod ? [POD] : [],
    mode: 'block',
  });
  if (!o.keepDown) e.host.sim.portalUp(P2);
  return e;
}
