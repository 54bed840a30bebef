/**
 * No step that needs iscsid runs while iscsid is down (iscsid-needed.ts says which): the planner
 * refused such a plan already; this catches iscsid stopping between consent and the step. No
 * override: the command cannot succeed.
 */
import { needsIscsid } from '../iscsid-needed.js';
import type { Invariant } from './types.js';

export const iscsidInvariant: Invariant = {
  id: 'iscsid',
  rule: 'No iscsiadm login, logout, discovery or rescan runs while iscsid is down: the command would fail after the steps before it had run.',
  check(e, g) {
    if (g.s.iscsid !== 'down' || !needsIscsid(e)) return undefined;
    return {
      object: 'iscsid',
      reason:
        'iscsid is not running (no iscsid process, no iscsid.socket); start it (systemctl start iscsid) and plan again',
    };
  },
};
