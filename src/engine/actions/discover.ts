/**
 * The targets a portal offers, for the attach wizard: SendTargets with `-o nonpersistent`, which
 * stores neither a discovery record nor node records (open-iscsi usr/iscsiadm.c
 * do_software_sendtargets skips idbm_add_discovery and the node writes for OP_NONPERSISTENT), so
 * listing a portal's targets leaves the node DB as it was. The attach itself discovers again,
 * inside its plan (attach.ts), where the records it writes are named and tidied.
 */
import type { Host } from '../host/host.js';
import { sendTargetsListArgv } from '../iscsiadm/argv.js';
import { type DiscoveredTarget, parseDiscovery } from '../iscsiadm/discovery.js';
import { commandError, runCommand } from './iscsiadm.js';
import { TIMEOUTS } from './plan-kit.js';

export async function listPortalTargets(host: Host, portal: string): Promise<DiscoveredTarget[]> {
  const r = await runCommand(host, sendTargetsListArgv(portal), { timeoutMs: TIMEOUTS.iscsiadm });
  // 21 (ISCSI_ERR_NO_OBJS_FOUND) after a completed SendTargets: "No portals found", an empty list.
  if (r.exitCode === 21) return [];
  if (!r.ok) throw commandError(r);
  return parseDiscovery(r.stdout);
}
