import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { EMPTY, type NodeEntry } from '../iscsid/node-db.js';
import { portalComma } from '../kernel/names.js';
import type { SimSession } from '../types.js';
import { ERR_TEXT, ISCSID_DOWN_NOISE, loginTag, sessionTag } from './messages.js';

function val(n: NodeEntry, key: string): string | undefined {
  const v = n.rec.get(key);
  return v === undefined || v === EMPTY ? undefined : v;
}

/** The session a node record already has (same target, portal and iface). */
export function sessionFor(ctx: SimContext, n: NodeEntry): SimSession | undefined {
  return ctx.kernel.findSessions(
    (s) =>
      s.iqn === n.iqn &&
      s.portal.address === n.portal.address &&
      s.portal.port === n.portal.port &&
      s.iface === n.iface,
  )[0];
}

/**
 * `--login` over node records (usr/iscsiadm.c login_portals): "Logging in to" for each record, then
 * a result per record; any failure ends with "Could not log into all portals" and the last code.
 */
export function loginRecords(ctx: SimContext, records: readonly NodeEntry[]): ToolResult {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const attempts: { n: NodeEntry; outcome: number }[] = [];
  for (const n of records) {
    if (sessionFor(ctx, n)) {
      // usr/session_mgmt.c: the record's nr_sessions are already there.
      stderr += `iscsiadm: ${n.iface}: 1 session requested, but 1 already present.\n`;
      code = 15;
      continue;
    }
    stdout += `Logging in to ${loginTag(n.iface, n.iqn, portalComma(n.portal))}\n`;
    attempts.push({ n, outcome: loginOne(ctx, n) });
  }
  for (const { n, outcome } of attempts) {
    const tag = loginTag(n.iface, n.iqn, portalComma(n.portal));
    if (outcome === 0) {
      stdout += `Login to ${tag} successful.\n`;
    } else {
      if (outcome === 20) stderr += ISCSID_DOWN_NOISE;
      stderr += `iscsiadm: Could not login to ${tag}.\niscsiadm: initiator reported error (${outcome} - ${ERR_TEXT[outcome]})\n`;
      code = outcome;
    }
  }
  if (code !== 0) {
    stderr += 'iscsiadm: Could not log into all portals\n';
    return fail(code, stderr, stdout);
  }
  return ok(stdout, stderr);
}

/** One login: iscsid must run, the SAN must accept, then the kernel gets a session. */
function loginOne(ctx: SimContext, n: NodeEntry): number {
  if (!ctx.daemons.iscsid || ctx.faults.iscsidDown) return 20;
  const portalKey = `${n.portal.address}:${n.portal.port}`;
  const scripted = ctx.faults.loginFailures.get(n.iqn) ?? ctx.faults.loginFailures.get(portalKey);
  if (scripted) return scripted;
  const initiator = val(n, 'iface.initiatorname') ?? ctx.db.initiatorName;
  const outcome = ctx.san.login(n.iqn, n.portal, initiator, {
    method: val(n, 'node.session.auth.authmethod') ?? 'None',
    username: val(n, 'node.session.auth.username'),
    password: val(n, 'node.session.auth.password'),
    usernameIn: val(n, 'node.session.auth.username_in'),
    passwordIn: val(n, 'node.session.auth.password_in'),
  });
  if (outcome !== 0) return outcome;
  const target = ctx.san.find(n.iqn)!;
  const user = val(n, 'node.session.auth.username');
  const userIn = val(n, 'node.session.auth.username_in');
  ctx.kernel.login({
    iqn: n.iqn,
    portal: n.portal,
    tpgt: target.tpgt ?? 1,
    iface: n.iface,
    initiatorName: initiator,
    recoveryTmo: Number(val(n, 'node.session.timeo.replacement_timeout') ?? 120),
    scan: val(n, 'node.session.scan') === 'manual' ? 'manual' : 'auto',
    luns: target.luns,
    tid: ctx.san.tid(n.iqn),
    ...(user && target.chap ? { chapUser: user } : {}),
    ...(userIn && target.chap?.usernameIn ? { chapUserIn: userIn } : {}),
  });
  return 0;
}

/** Logs sessions out: "Logging out of session" for each, then "Logout of ... successful." each. */
export function logoutSessions(ctx: SimContext, sessions: readonly SimSession[]): ToolResult {
  if (!ctx.daemons.iscsid || ctx.faults.iscsidDown) {
    let stderr = '';
    for (const s of sessions) {
      stderr += `${ISCSID_DOWN_NOISE}iscsiadm: Could not logout of ${sessionTag(s.sid, s.iqn, portalComma(s.portal))}.\n`;
      stderr += `iscsiadm: initiator reported error (20 - ${ERR_TEXT[20]})\n`;
    }
    return fail(20, `${stderr}iscsiadm: Could not logout of all requested sessions\n`);
  }
  let stdout = '';
  for (const s of sessions)
    stdout += `Logging out of session ${sessionTag(s.sid, s.iqn, portalComma(s.portal))}\n`;
  for (const s of sessions) {
    ctx.kernel.logout(s);
    stdout += `Logout of ${sessionTag(s.sid, s.iqn, portalComma(s.portal))} successful.\n`;
  }
  return ok(stdout);
}
