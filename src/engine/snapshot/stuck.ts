/**
 * The stuck question: is a down session waiting for its array (an outage) or stuck while its array
 * answers? Only the live probe can say (docs/stuck-sessions.md); without its results every down
 * portal stays an outage, as the node's files alone allow. Pure: the sessions' kernel states, the
 * outages of outages.ts and the probe results in, the split out.
 *
 * Kernel facts (drivers/scsi/scsi_transport_iscsi.c in torvalds/linux): a session whose connection
 * failed is FAILED (devices blocked) until iscsid re-logs in, and FREE (devices transport-offline)
 * once `recovery_tmo` ran out; nothing in sysfs records when it failed, so "for 14 min" counts from
 * the first read that saw it down (Session.downSeenAt), and is an at-least.
 */
import type { PortalOutage, PortalProbe, Session, Snapshot, StuckPortal } from '../model.js';
import { plural } from '../text/plural.js';
import { clockTime, durationWords } from '../text/time.js';
import { isSessionDown } from './outages.js';

// The one time formatter (src/engine/text/time.ts), offered here where the stuck texts' users import it.
export { clockTime };

/** `portal 10.0.0.10:3260 answers; 2 sessions stuck (probed 12:01:03 UTC)`. */
function stuckSummary(portal: string, sessions: number, probe: PortalProbe): string {
  return `portal ${portal} answers; ${plural(sessions, 'session')} stuck (probed ${clockTime(probe.at)})`;
}

/** The outage's words once a probe found the portal silent: `…; portal does not answer (probed 12:01:03 UTC)`. */
function silentSummary(o: PortalOutage, probe: PortalProbe): string {
  return `${o.summary}; portal does not answer (probed ${clockTime(probe.at)}: ${probe.detail})`;
}

interface StuckSplit {
  /** The portals still taken as down (no probe, or a probe that got no answer). */
  outages: PortalOutage[];
  stuck: StuckPortal[];
}

/**
 * Splits the down sessions by the probe: a portal whose probe answered is no outage; its down
 * sessions (all of them, or some beside sessions that are up) are stuck. A probe that got no
 * answer is written into its outage. Portals the probe did not reach (`answers` undefined) stay
 * as they were.
 */
export function splitStuck(
  sessions: readonly Pick<Session, 'sid' | 'portal' | 'state' | 'connections'>[],
  outages: readonly PortalOutage[],
  probes: readonly PortalProbe[] | undefined,
): StuckSplit {
  if (!probes || probes.length === 0) return { outages: [...outages], stuck: [] };
  const byPortal = new Map(probes.map((p) => [p.portal, p]));
  const out: PortalOutage[] = [];
  for (const o of outages) {
    const p = byPortal.get(o.portal);
    if (p?.answers === true) continue;
    out.push(p?.answers === false ? { ...o, probe: p, summary: silentSummary(o, p) } : o);
  }
  const down = new Map<string, number[]>();
  for (const s of sessions) {
    if (s.portal === '' || byPortal.get(s.portal)?.answers !== true || !isSessionDown(s)) continue;
    const l = down.get(s.portal);
    if (l) l.push(s.sid);
    else down.set(s.portal, [s.sid]);
  }
  const stuck: StuckPortal[] = [];
  for (const [portal, sids] of down) {
    const probe = byPortal.get(portal)!;
    sids.sort((a, b) => a - b);
    stuck.push({ portal, sessions: sids, probe, summary: stuckSummary(portal, sids.length, probe) });
  }
  stuck.sort((a, b) => a.portal.localeCompare(b.portal));
  return { outages: out, stuck };
}

/**
 * One stuck session's reason, the problem's words: `session 7 FAILED for 14 min while its portal
 * answers` (the time from the first read that saw it down to the probe), or `… FAILED while its
 * portal answers` when this process has seen it down only now.
 */
export function stuckReason(s: Pick<Session, 'sid' | 'state' | 'downSeenAt'>, probe: PortalProbe): string {
  const since = s.downSeenAt ? Date.parse(probe.at) - Date.parse(s.downSeenAt) : Number.NaN;
  const time = Number.isFinite(since) && since >= 1000 ? ` for ${durationWords(since)}` : '';
  return `session ${s.sid} ${s.state}${time} while its portal answers`;
}

/** The probe that proved a down session's portal answers, when the session is stuck in `snap`. */
export function stuckProbeOf(
  snap: Pick<Snapshot, 'stuck'>,
  s: Pick<Session, 'sid' | 'portal'>,
): PortalProbe | undefined {
  return snap.stuck?.find((p) => p.portal === s.portal && p.sessions.includes(s.sid))?.probe;
}

/** A recovery an admin would consider for a stuck session, with its risk (docs/stuck-sessions.md). */
interface StuckRecovery {
  what: string;
  risk: 'low' | 'medium' | 'high';
  why: string;
}

/**
 * What an admin would consider for a stuck session, each with its risk: the console offers no
 * automatic repair for one in use (`inUse`), only these facts; one nothing uses may be cleaned up.
 * `otherPathsUp`: the session's volume has another working path (multipath fails over).
 */
export function stuckRecoveries(o: { inUse: boolean; otherPathsUp: boolean }): StuckRecovery[] {
  if (!o.inUse)
    return [
      {
        what: 'cleanup (no override needed: the portal answers)',
        risk: 'low',
        why: 'nothing uses the session; its logout re-checks that the portal still answers',
      },
    ];
  const single = !o.otherPathsUp;
  return [
    {
      what: 'wait',
      risk: 'low',
      why: 'I/O on this path stays queued or failing; the volume may run short of paths for good',
    },
    {
      what: 'restart iscsid',
      risk: single ? 'medium' : 'low',
      why: 'iscsid retries the login of the sessions it finds at start (open-iscsi#126); a session that still cannot log in stays down',
    },
    {
      what: 'echo 1 > /sys/class/iscsi_session/sessionN/recovery_tmo',
      risk: single ? 'high' : 'medium',
      why: single
        ? 'queued I/O fails at once and no other path takes it: the filesystem sees errors (ext4 errors=remount-ro stops it)'
        : 'queued I/O on this path fails at once; multipath moves it to the working paths',
    },
    {
      what: 'logout and login again',
      risk: 'high',
      why: single
        ? 'the disk under a mounted filesystem is removed; stop the pod first'
        : 'this path is removed and re-added; a logout may be refused while iscsid reconnects (open-iscsi#513)',
    },
  ];
}
