import { findOutages, isSessionDown, outageDetail, RECOVERY_EXPIRED } from '../../snapshot/outages.js';
import { readSessions } from '../../snapshot/sessions.js';
import { plural } from '../../text/plural.js';
import { isoTime } from '../../text/time.js';
import { defineCheck } from '../define-check.js';
import { listSome } from '../evidence.js';

/**
 * Portals down: every session of this node to a portal is FAILED/FREE or has its connection down
 * (the snapshot's own rule, src/engine/snapshot/outages.ts). Fails, since pods on those sessions
 * have no I/O path; a session down on its own while its portal's others are up is a warning.
 */
export const portalsUp = defineCheck({ id: 'sessions.portals', title: 'session portals up' }, (ctx) => {
  const { sessions } = readSessions(ctx.host, []);
  if (sessions.length === 0) return { status: 'pass', evidence: 'no iSCSI sessions' };
  const now = ctx.host.now();
  const outages = findOutages(sessions, isoTime(now));
  if (outages.length > 0) {
    // Past recovery_tmo the kernel fails I/O now: the line says so first (RECOVERY_EXPIRED).
    const expired = outages.filter((o) => o.expired).map((o) => o.portal);
    return {
      title:
        expired.length > 0
          ? `${expired.length === outages.length ? '' : 'portal down; '}${RECOVERY_EXPIRED} on ${expired.join(', ')}`
          : `${outages.length === 1 ? 'portal' : 'portals'} down`,
      status: 'fail',
      evidence: outages.map((o) => `${o.summary} (${outageDetail(o, now)})`).join('; '),
      hint: 'check the target and the network path to it; iscsid logs the sessions back in when it answers (do not clean them up meanwhile)',
    };
  }
  const down = sessions.filter(isSessionDown);
  const portals = new Set(sessions.map((s) => s.portal));
  if (down.length > 0) {
    return {
      title: 'sessions down while their portals are up',
      status: 'warn',
      evidence: `${plural(down.length, 'session')} down while ${down.length === 1 ? 'its portal is' : 'their portals are'} up: ${listSome(
        down.map((s) => `${s.sid} ${s.targetIqn} @ ${s.portal} ${s.state}`),
        3,
      )}`,
      hint: 'the target may have dropped these sessions: check it for their IQNs (iscsiadm -m session -P 3)',
    };
  }
  return {
    status: 'pass',
    evidence: `${plural(sessions.length, 'session')} up on ${plural(portals.size, 'portal')}`,
  };
});
