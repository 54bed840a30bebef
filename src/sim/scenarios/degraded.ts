import type { Simulator } from '../simulator.js';
import { loginAndFormat, PORTAL_A, PORTAL_B, PORTAL_C, target, volume } from './lab.js';

/**
 * After an outage, what should be there is not: a multipath volume kubelet attached while one of
 * its two portals was down (kubelet carries on with the logins that worked, kubernetes#74305), so it
 * runs on one path though both portals answer now; a LUN a volume expects with no device (removed
 * on the node after a target-side change); a session stuck FAILED while its portal answers
 * (trident#1138) — the probe (`status --probe`, write mode) tells it from an outage; and an ext4
 * the kernel stopped after an I/O error (democratic-csi#193) while its session looks healthy.
 */
export async function degraded(sim: Simulator): Promise<void> {
  // One of two paths: PORTAL_B was down at attach time and is back now.
  sim.portalDown(PORTAL_B);
  await volume(sim, target('orders-data', [PORTAL_A, PORTAL_B], [20]), 'orders-0', {
    namespace: 'shop',
    mode: 'block',
  });
  sim.portalUp(PORTAL_B);
  // A LUN expected with no device: kubelet's dir names LUN 2, its device was deleted on the node.
  await volume(sim, target('catalog-data', [PORTAL_A], [10, 10]), 'catalog-0', {
    namespace: 'shop',
    mode: 'block',
    lun: 2,
  });
  const cat = sim.kernel.findSessions((s) => s.iqn.endsWith(':catalog-data'))[0]!;
  for (const v of sim.kernel.sdDevices().values())
    if (v.session === cat && v.device.lun === 2) sim.kernel.removeDevice(cat, v.device);
  // A session stuck while its portal answers: logged in by hand, nothing uses it, and it never recovers.
  await loginAndFormat(sim, target('scratch', [PORTAL_C], [5]));
  const stuck = sim.kernel.findSessions((s) => s.iqn.endsWith(':scratch'))[0]!;
  sim.sessionStuck(stuck.sid);
  // A filesystem forced read-only: the target went away past replacement_timeout and came back;
  // ext4 (errors=remount-ro) stopped writes on the I/O error and stays stopped though the path is back.
  await volume(sim, target('pg-data', [PORTAL_A], [10]), 'pg-0', { namespace: 'db' });
  const pg = sim.kernel.findSessions((x) => x.iqn.endsWith(':pg-data'))[0]!;
  const sd = [...sim.kernel.sdDevices()].find(([, v]) => v.session === pg && v.device.lun === 1)![0];
  sim.fsError(sd);
}
