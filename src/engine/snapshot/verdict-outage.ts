/**
 * Outage? A session whose portal is down (outages.ts findOutages) says so first, and one nothing on
 * the node uses is `outage`, never plain orphaned or stale: iscsid logs it back in when the portal
 * returns, so it is not a leftover to clean up.
 */
import type { PortalOutage } from '../model.js';
import type { SysfsSession } from './sessions.js';
import type { VerdictIndex } from './verdict-index.js';
import type { Decided } from './verdict-types.js';

/** The session's portal outage, if its portal is down. */
export function outageOf(s: SysfsSession, idx: VerdictIndex): PortalOutage | undefined {
  return s.portal === '' ? undefined : idx.outageByPortal.get(s.portal);
}

/** The verdict with the outage put first (a new value; `decided` is left as it is). */
export function outageVerdict(decided: Decided, outage: PortalOutage | undefined): Decided {
  if (!outage) return decided;
  // The outage comes first: it is what the admin must know before anything else about the session.
  const { verdict, reasons } = decided;
  if (verdict !== 'orphaned' && verdict !== 'stale')
    return { verdict, reasons: [outage.summary, ...reasons] };
  return {
    verdict: 'outage',
    reasons: [
      outage.summary,
      `nothing on this node uses it (it would be ${verdict}), but its portal is down: iscsid logs it back in when the portal returns`,
      ...reasons,
    ],
  };
}
