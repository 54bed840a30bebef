import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { EMPTY, renderRecord } from '../iscsid/node-db.js';
import { portalComma, portalOf, portalText } from '../kernel/names.js';
import { chapMatches } from '../san.js';
import type { Portal } from '../types.js';
import type { IscsiadmArgs } from './args.js';
import { ISCSID_DOWN_NOISE, NO_RECORDS } from './messages.js';

/** `iscsiadm -m discovery [-t st -p P]` and `-m discoverydb -t st -p P [-o new|update|delete|show] [--discover]`. */
export function discoveryMode(ctx: SimContext, a: IscsiadmArgs, legacy: boolean): ToolResult {
  if (!a.portal) {
    if (ctx.db.discovery.length === 0) return fail(21, NO_RECORDS);
    return ok(ctx.db.discovery.map((d) => `${portalText(d.portal)} via sendtargets\n`).join(''));
  }
  const portal = portalOf(a.portal);
  const op = a.ops[0];
  if (!legacy && op === 'new' && !a.discover) {
    ctx.db.newDiscovery(portal);
    return ok(`New discovery record for [${portalComma(portal)}] added.\n`);
  }
  if (!legacy && op === 'update') {
    const d = ctx.db.findDiscovery(portal);
    if (!d) return fail(21, NO_RECORDS);
    if (!d.rec.has(a.name ?? '')) return fail(7, `iscsiadm: Cannot modify ${a.name}. Invalid param name.\n`);
    d.rec.set(a.name!, a.value || EMPTY);
    ctx.db.writeDiscovery(d);
    return ok();
  }
  if (!legacy && op === 'delete') {
    const d = ctx.db.findDiscovery(portal);
    if (!d) return fail(21, NO_RECORDS);
    ctx.db.deleteDiscovery(d);
    return ok();
  }
  if (!legacy && (op === 'show' || (!a.discover && op === undefined))) {
    const d = ctx.db.findDiscovery(portal);
    return d ? ok(renderRecord(d.rec, a.show)) : fail(21, NO_RECORDS);
  }
  return sendTargets(ctx, portal, a.iface ?? 'default', a.ops.includes('nonpersistent'));
}

/** SendTargets: connect, (CHAP), list what the portal returns, and add node records for it. */
function sendTargets(ctx: SimContext, portal: Portal, iface: string, nonpersistent: boolean): ToolResult {
  if (!ctx.daemons.iscsid || ctx.faults.iscsidDown) {
    return fail(
      20,
      `${ISCSID_DOWN_NOISE}${ISCSID_DOWN_NOISE}iscsiadm: Cannot perform discovery. Initiatorname required.\niscsiadm: Could not perform SendTargets discovery: could not connect to iscsid\n`,
    );
  }
  // `-o nonpersistent` stores nothing: no discovery record, no node records (usr/iscsiadm.c).
  const d = nonpersistent ? ctx.db.findDiscovery(portal) : ctx.db.newDiscovery(portal);
  const broken = ctx.san.brokenHow(portal);
  // A listener that accepts and never answers: iscsiadm waits for the login response until killed.
  if (broken === 'silent' && ctx.san.acceptsTcp(portal)) return { hang: true };
  if (broken === 'drops' && ctx.san.acceptsTcp(portal)) {
    const line = `iscsiadm: Connection to Discovery Address ${portal.address} closed\n`;
    return fail(
      4,
      `${line}iscsiadm: Login I/O error, failed to receive a PDU\niscsiadm: Could not perform SendTargets discovery: encountered connection failure\n`,
    );
  }
  if (!ctx.san.reachable(portal)) {
    // err-discovery-closed-port.txt: six connection attempts (reopen_max 5), then a PDU timeout.
    const line = `iscsiadm: cannot make connection to ${portal.address}: Connection refused\n`;
    return fail(
      11,
      `${line.repeat(6)}iscsiadm: connection login retries (reopen_max) 5 exceeded\niscsiadm: Could not perform SendTargets discovery: iSCSI PDU timed out\n`,
    );
  }
  const chap = ctx.san.discoveryChap(portal);
  if (chap) {
    const get = (k: string) => {
      const v = d?.rec.get(`discovery.sendtargets.auth.${k}`);
      return v === EMPTY ? undefined : v;
    };
    const creds = {
      method: get('authmethod') ?? 'None',
      username: get('username'),
      password: get('password'),
      usernameIn: get('username_in'),
      passwordIn: get('password_in'),
    };
    if (!chapMatches(chap, creds)) {
      return fail(
        24,
        `iscsiadm: Login failed to authenticate with target \niscsiadm: discovery login to ${portal.address} rejected: initiator failed authorization\n\niscsiadm: Could not perform SendTargets discovery: iSCSI login failed due to authorization failure\n`,
      );
    }
  }
  const found = ctx.san.sendTargets(portal, ctx.db.initiatorName);
  let out = '';
  for (const t of found) {
    const tpgt = t.tpgt ?? 1;
    for (const p of [portal, ...(t.advertise ?? []).map(portalOf)]) {
      out += `${portalText(p)},${tpgt} ${t.iqn}\n`;
      // Existing records keep their settings (as with `-o new`); new ones get iscsid.conf defaults.
      if (!nonpersistent && ctx.db.matchNodes({ iqn: t.iqn, portal: p, iface }).length === 0)
        ctx.db.newNode(t.iqn, p, tpgt, iface, portal);
    }
  }
  if (!nonpersistent) ctx.kernel.emit('node-db', `discovery ${portalText(portal)}`);
  if (found.length === 0) return fail(21, 'iscsiadm: No portals found\n');
  return ok(out);
}
