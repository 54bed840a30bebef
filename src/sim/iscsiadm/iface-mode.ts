import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { EMPTY, renderRecord } from '../iscsid/node-db.js';
import type { IscsiadmArgs } from './args.js';

/** `iscsiadm -m iface [-I name -o show|new|update|delete]` (usr/iface.c). */
export function ifaceMode(ctx: SimContext, a: IscsiadmArgs): ToolResult {
  const op = a.ops[0];
  if (!a.iface) {
    const names = [
      'default',
      'iser',
      ...[...ctx.db.ifaces.keys()].filter((n) => n !== 'default' && n !== 'iser'),
    ];
    const line = (n: string) => {
      const r = ctx.db.iface(n)!;
      const g = (k: string) => r.get(k) ?? EMPTY;
      return `${n} ${g('iface.transport_name')},${g('iface.hwaddress')},${g('iface.ipaddress')},${g('iface.net_ifacename')},${g('iface.initiatorname')}\n`;
    };
    return ok(names.map(line).join(''));
  }
  const name = a.iface;
  if (op === 'new') {
    if (ctx.db.iface(name)) return fail(15, `iscsiadm: Could not create new interface ${name}.\n`);
    ctx.db.newIface(name);
    return ok(`New interface ${name} added\n`);
  }
  const rec = ctx.db.iface(name);
  if (!rec) return fail(21, `iscsiadm: Could not read iface ${name} (-1).\n`);
  if (op === undefined || op === 'show') return ok(renderRecord(rec, a.show));
  if (op === 'update') {
    if (!ctx.db.ifaces.has(name)) return fail(7, `iscsiadm: Could not update iface ${name}: built-in\n`);
    if (!rec.has(a.name ?? '')) return fail(7, `iscsiadm: Cannot modify ${a.name}. Invalid param name.\n`);
    rec.set(a.name!, a.value || EMPTY);
    ctx.db.writeIface(name);
    return ok(`${name} updated.\n`);
  }
  if (op === 'delete') {
    if (!ctx.db.ifaces.has(name)) return fail(7, `iscsiadm: Could not delete iface ${name}: built-in\n`);
    if (ctx.kernel.findSessions((s) => s.iface === name).length > 0) {
      return fail(15, `iscsiadm: Could not delete iface ${name}: session exists\n`);
    }
    ctx.db.deleteIface(name);
    return ok(`${name} unbound and deleted.\n`);
  }
  return fail(7, `iscsiadm: operation '${op}' not supported in iface mode\n`);
}
