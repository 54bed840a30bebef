import type { Simulator } from '../simulator.js';
import type { ChapSecret } from '../types.js';
import { PORTAL_LOCAL, PORTAL_LOCAL_GUARDED, PORTAL_V6, target } from './lab.js';

/** The lab's CHAP credentials: made up for this demo, served by its simulated array only. */
const SESSION_CHAP: ChapSecret = { username: 'labuser', password: 'labsecret123' };
const DISCOVERY_CHAP: ChapSecret = { username: 'discuser', password: 'discsecret456' };

/**
 * What the demo serves, said on screen (the console's empty Sessions view, `status`): a new user
 * can attach without reading the source. Demo-only credentials, never a real secret.
 */
export const EMPTY_NOTE = [
  `demo array: portals ${PORTAL_LOCAL} and ${PORTAL_V6} (no CHAP but secure-volume),`,
  `${PORTAL_LOCAL_GUARDED} (discovery CHAP ${DISCOVERY_CHAP.username} / ${DISCOVERY_CHAP.password});`,
  `session CHAP of secure-volume and guarded-volume: ${SESSION_CHAP.username} / ${SESSION_CHAP.password}.`,
  'These are lab credentials of this demo only, not real secrets.',
].join('\n');

/**
 * Nothing logged in: targets to discover and attach (loopback, IPv6, one requiring session CHAP, and
 * one on a second loopback portal whose discovery requires CHAP too).
 */
export async function empty(sim: Simulator): Promise<void> {
  sim.addTarget(target('storage.target1', [PORTAL_LOCAL], [1, 0.5]));
  sim.addTarget(target('storage.target2', [PORTAL_LOCAL], [0.25]));
  sim.addTarget(target('v6-volume', [PORTAL_V6], [2]));
  sim.addTarget(target('secure-volume', [PORTAL_LOCAL], [4], { chap: SESSION_CHAP }));
  sim.addTarget(
    target('guarded-volume', [PORTAL_LOCAL_GUARDED], [1, 2], {
      chap: SESSION_CHAP,
      discoveryChap: DISCOVERY_CHAP,
    }),
  );
}
