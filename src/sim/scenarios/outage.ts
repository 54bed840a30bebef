import type { Simulator } from '../simulator.js';
import { PORTAL_A, PORTAL_B, target, volume } from './lab.js';

/** Controller A dies: every session through 10.0.0.10:3260 fails at once; B's volumes are fine. */
export async function outage(sim: Simulator): Promise<void> {
  for (const name of ['postgres-data', 'redis-data', 'elastic-0', 'elastic-1']) {
    await volume(sim, target(name, [PORTAL_A], [10]), `${name}-pod`);
  }
  for (const name of ['minio-0', 'minio-1']) {
    await volume(sim, target(name, [PORTAL_B], [10]), `${name}-pod`);
  }
  sim.portalDown(PORTAL_A);
}
