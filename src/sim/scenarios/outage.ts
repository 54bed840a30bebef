import type { Simulator } from '../simulator.js';
import { loginAndFormat, PORTAL_A, PORTAL_B, target, volume } from './lab.js';

/**
 * Controller A dies: every session through 10.0.0.10:3260 fails at once; B's volumes are fine.
 * One of A's sessions is no pod's: an admin's old scratch login (no mount, no kubelet dir). Its
 * cleanup is refused as the outage's (the array may come back) and is the one the override act
 * may lift: nothing uses it, while the other failed sessions stay refused as in use.
 */
export async function outage(sim: Simulator): Promise<void> {
  for (const name of ['postgres-data', 'redis-data', 'elastic-0', 'elastic-1']) {
    await volume(sim, target(name, [PORTAL_A], [10]), `${name}-pod`);
  }
  await loginAndFormat(sim, target('scratch-old', [PORTAL_A], [5]));
  for (const name of ['minio-0', 'minio-1']) {
    await volume(sim, target(name, [PORTAL_B], [10]), `${name}-pod`);
  }
  sim.portalDown(PORTAL_A);
}
