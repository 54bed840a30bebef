/**
 * A session's fields in the `/` filter language (src/engine/text/filter.ts): what the console's
 * Sessions view filters on and what `status --filter` filters on, so `/health=failed` and
 * `status --filter health=failed` pick the same sessions. The names are the Sessions view's column
 * names in lower case (`target` and `iqn` are both the target IQN).
 */
import type { Session } from '../model.js';
import type { Problem } from './problems.js';

/** The field names, in the order help lists them. */
export const SESSION_FILTER_FIELDS = [
  'sid',
  'target',
  'iqn',
  'portal',
  'iface',
  'state',
  'host',
  'verdict',
  'health',
  'reason',
  'devices',
  'pods',
] as const;

type SessionField = (typeof SESSION_FILTER_FIELDS)[number];

/** A session's values for the filter; `p` is its problem (nodeProblems), whose reason is the REASON. */
export function sessionFilterFields(s: Session, p: Problem): Record<SessionField, string> {
  return {
    sid: String(s.sid),
    target: s.targetIqn,
    iqn: s.targetIqn,
    portal: s.portal,
    iface: s.iface,
    state: s.state,
    host: s.hostNumber === undefined ? '' : String(s.hostNumber),
    verdict: s.verdict,
    health: s.health,
    devices: s.devices.map((d) => d.name ?? d.hctl).join(','),
    pods: s.pods.join(','),
    reason: p.reason,
  };
}
