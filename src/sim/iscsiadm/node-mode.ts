import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { renderRecord } from '../iscsid/node-db.js';
import { portalComma, portalOf, portalText } from '../kernel/names.js';
import type { IscsiadmArgs } from './args.js';
import { loginRecords, logoutSessions, sessionFor } from './login.js';
import { NO_MATCHING_SESSIONS, NO_RECORDS } from './messages.js';

/** Values iscsiadm accepts for the enumerated node keys (usr/idbm.c idbm_rec_update_param). */
const ENUMS: Record<string, readonly string[]> = {
  'node.startup': ['automatic', 'manual', 'onboot'],
  'node.session.scan': ['auto', 'manual'],
  'node.session.auth.authmethod': ['None', 'CHAP'],
};

/** `iscsiadm -m node ...`: list, show, new, update, delete, login, logout, loginall, logoutall. */
export function nodeMode(ctx: SimContext, a: IscsiadmArgs): ToolResult {
  const portal = a.portal ? portalOf(a.portal) : undefined;
  const filter = { iqn: a.target, portal, iface: a.iface };

  if (a.logoutall) {
    const sessions = ctx.kernel.findSessions((s) => {
      if (a.logoutall === 'all') return true;
      const n = ctx.db.matchNodes({ iqn: s.iqn, portal: s.portal, iface: s.iface })[0];
      return (n?.rec.get('node.startup') ?? 'manual') === a.logoutall;
    });
    return sessions.length === 0 ? fail(21, NO_MATCHING_SESSIONS) : logoutSessions(ctx, sessions);
  }
  if (a.loginall) {
    const recs = ctx.db.nodes.filter((n) => a.loginall === 'all' || n.rec.get('node.startup') === a.loginall);
    const todo = recs.filter((n) => !sessionFor(ctx, n));
    if (recs.length === 0) return fail(21, NO_RECORDS);
    return todo.length === 0 ? ok() : loginRecords(ctx, todo);
  }
  if (a.logout) {
    // Logout matches sessions in sysfs, not records (a deleted record does not keep a session alive).
    const sessions = ctx.kernel.findSessions(
      (s) =>
        (!filter.iqn || s.iqn === filter.iqn) &&
        (!portal || (s.portal.address === portal.address && s.portal.port === portal.port)) &&
        (!filter.iface || s.iface === filter.iface),
    );
    return sessions.length === 0 ? fail(21, NO_MATCHING_SESSIONS) : logoutSessions(ctx, sessions);
  }

  const op = a.ops[0];
  if (op === 'new') {
    if (!a.target || !portal) return fail(7, 'iscsiadm: --targetname and --portal required for new\n');
    const iface = a.iface ?? 'default';
    const tpgt = portal.tpgt ?? -1;
    ctx.db.newNode(a.target, portal, tpgt, iface);
    ctx.kernel.emit('node-db', `new ${a.target}`);
    return ok(
      `New iSCSI node [tcp:[hw=,ip=,net_if=,iscsi_if=${iface}] ${portalComma(portal)},${tpgt} ${a.target}] added\n`,
    );
  }

  const records = ctx.db.matchNodes(filter);
  if (a.login) return records.length === 0 ? fail(21, NO_RECORDS) : loginRecords(ctx, records);

  if (op === undefined || op === 'show') {
    if (records.length === 0) return fail(21, NO_RECORDS);
    if (op === 'show' || a.target || portal) {
      return ok(records.map((n) => renderRecord(n.rec, a.show)).join(''));
    }
    if (a.print === 1) {
      let out = '';
      let prev: string | undefined;
      for (const n of records) {
        if (n.iqn !== prev) out += `Target: ${n.iqn}\n`;
        prev = n.iqn;
        out += `\tPortal: ${portalText(n.portal)},${n.tpgt}\n\t\tIface Name: ${n.iface}\n`;
      }
      return ok(out);
    }
    return ok(records.map((n) => `${portalText(n.portal)},${n.tpgt} ${n.iqn}\n`).join(''));
  }
  if (op === 'update') {
    if (records.length === 0) return fail(21, NO_RECORDS);
    const key = a.name ?? '';
    if (!records[0]!.rec.has(key)) return fail(7, `iscsiadm: Cannot modify ${key}. Invalid param name.\n`);
    const allowed = ENUMS[key];
    if (allowed && !allowed.includes(a.value ?? '')) {
      return fail(7, `iscsiadm: Cannot modify ${key}. Invalid param value ${a.value}.\n`);
    }
    for (const n of records) {
      n.rec.set(key, a.value === '' || a.value === undefined ? '<empty>' : a.value);
      ctx.db.writeNode(n);
    }
    ctx.kernel.emit('node-db', `update ${key}`);
    return ok();
  }
  if (op === 'delete') {
    if (records.length === 0) return fail(21, NO_RECORDS);
    for (const n of records) {
      if (sessionFor(ctx, n)) {
        // usr/iscsiadm.c delete_node: a logged-in record is not removed.
        return fail(
          15,
          `iscsiadm: This command will remove the record [iface: ${n.iface}, target: ${n.iqn}, portal: ${portalComma(n.portal)}], but a session is using it. Logout session then rerun command to remove record.\n`,
        );
      }
    }
    for (const n of records) ctx.db.deleteNode(n);
    ctx.kernel.emit('node-db', 'delete');
    return ok();
  }
  return fail(7, `iscsiadm: operation '${op}' not supported in node mode\n`);
}
