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
      // `--rescan` writes "- - -" to the host's scan file whatever node.session.scan says: on the real
      // 6.1 kernel with open-iscsi 2.1.8 it found every LUN of a scan=manual session (e2e scenario 4).
      if (s.state === 'LOGGED_IN') ctx.kernel.scanSession(s, undefined);
    }
    return ok(out);
  }
  if (sessions.length === 0) return fail(21, NO_SESSIONS);
  const level = a.print ?? 0;
  return ok(level === 0 ? printFlat(sessions) : printTree(sessions, level));
}
