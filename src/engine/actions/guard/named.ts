/**
 * A logout or a record deletion touches only a session or record the plan named when the admin
 * consented, or one this apply's own steps created; and never the record of a live session unless
 * the plan says so (the `forget` planner's `session-active` refusal, kept for every path).
 */
import { sessionByKey } from '../lookup.js';
import type { Invariant } from './types.js';

export const namedInvariant: Invariant = {
  id: 'named',
  rule: 'A logout or a node record deletion touches only a session or record the plan named at consent time (or one its own steps created), and never the record of a live session unless the plan says so.',
  check(e, g) {
    if (e.kind !== 'logout' && e.kind !== 'record-delete') return undefined;
    const object = e.kind === 'logout' ? e.session : e.record;
    const own = e.kind === 'logout' ? g.created.sessions : g.created.records;
    if (!g.named.has(object) && !own.has(object))
      return {
        object,
        reason: `${e.kind === 'logout' ? 'session' : 'node record'} ${object} was not named by the plan the admin consented to, nor created by it`,
      };
    if (e.kind === 'record-delete' && !e.live) {
      // A node record and its session share the fingerprint `target|portal|iface`.
      const live = sessionByKey(g.s, object);
      if (live) return { object, reason: `session ${live.sid} is logged in through node record ${object}` };
    }
    return undefined;
  },
};
