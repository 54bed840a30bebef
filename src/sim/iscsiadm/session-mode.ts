import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { portalComma } from '../kernel/names.js';
import type { IscsiadmArgs } from './args.js';
import { logoutSessions } from './login.js';
import { NO_SESSIONS, sessionTag, sidLookupFailed } from './messages.js';
import { printFlat, printTree } from './session-print.js';

/** `iscsiadm -m session [-r SID] [-P N] [--rescan] [-u]`. Reads the kernel only (works without iscsid). */
export function sessionMode(ctx: SimContext, a: IscsiadmArgs): ToolResult {
  let sessions = ctx.kernel.findSessions(() => true);
  if (a.sid !== undefined) {
    const s = ctx.kernel.sessions.get(a.sid);
    if (!s) return fail(22, sidLookupFailed(a.sid));
    sessions = [s];
  }
  if (a.logout) return sessions.length === 0 ? fail(21, NO_SESSIONS) : logoutSessions(ctx, sessions);
  if (a.rescan) {
    if (sessions.length === 0) return fail(21, NO_SESSIONS);
    let out = '';
    for (const s of sessions) {
      out += `Rescanning session ${sessionTag(s.sid, s.iqn, portalComma(s.portal))}\n`;
      // usr/iscsiadm.c rescan_portal: "- - -" to the host only when the record's scan is automatic.
      if (s.scan === 'auto' && s.state === 'LOGGED_IN') ctx.kernel.scanSession(s, undefined);
    }
    return ok(out);
  }
  if (sessions.length === 0) return fail(21, NO_SESSIONS);
  const level = a.print ?? 0;
  return ok(level === 0 ? printFlat(sessions) : printTree(sessions, level));
}
