import type { Simulator } from '../simulator.js';
import { PORTAL_LOCAL, PORTAL_LOCAL_GUARDED, PORTAL_V6, target } from './lab.js';

/**
 * Nothing logged in: targets to discover and attach (loopback, IPv6, one requiring session CHAP, and
 * one on a second loopback portal whose discovery requires CHAP too).
 */
export async function empty(sim: Simulator): Promise<void> {
  sim.addTarget(target('storage.target1', [PORTAL_LOCAL], [1, 0.5]));
  sim.addTarget(target('storage.target2', [PORTAL_LOCAL], [0.25]));
  sim.addTarget(target('v6-volume', [PORTAL_V6], [2]));
  sim.addTarget(
    target('secure-volume', [PORTAL_LOCAL], [4], { chap: { username: 'labuser', password: 'labsecret123' } }),
  );
  sim.addTarget(
    target('guarded-volume', [PORTAL_LOCAL_GUARDED], [1, 2], {
      chap: { username: 'labuser', password: 'labsecret123' },
      discoveryChap: { username: 'discuser', password: 'discsecret456' },
    }),
  );
}
