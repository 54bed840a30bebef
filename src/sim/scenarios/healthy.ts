import type { Simulator } from '../simulator.js';
import { PORTAL_A, PORTAL_B, target, volume } from './lab.js';

/** A few in-use volumes: single path, one multipath (two controllers), one block-mode volume. */
export async function healthy(sim: Simulator): Promise<void> {
  await volume(sim, target('postgres-data', [PORTAL_A], [20]), 'postgres-0', { namespace: 'db' });
  await volume(sim, target('redis-data', [PORTAL_A], [4]), 'redis-0', { namespace: 'db' });
  await volume(sim, target('kafka-data', [PORTAL_A, PORTAL_B], [50]), 'kafka-0', { namespace: 'streaming' });
  await volume(sim, target('raw-ledger', [PORTAL_B], [8]), 'ledger-0', {
    mode: 'block',
    namespace: 'payments',
  });
}
