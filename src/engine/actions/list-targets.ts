/**
 * The targets a portal offers when the portal asks for discovery CHAP, for the attach wizard.
 * Without CHAP the wizard's listing is one `-m discovery ... -o nonpersistent` that stores nothing
 * (discover.ts). Credentials cannot go on that command line (every local user reads
 * /proc/<pid>/cmdline), and legacy discovery mode only takes them from iscsid.conf; so with CHAP the
 * listing is a plan: a SendTargets discovery record (`-m discoverydb -o new`), its authmethod, the
 * credentials written into its file under iscsiadm's DB lock (record-secrets.ts), a discovery
 * through that record with `-o nonpersistent` (open-iscsi usr/iscsiadm.c do_discovery reads the
 * record, and do_software_sendtargets then writes no node record for OP_NONPERSISTENT), and the
 * record deleted again. A record that existed is used as it is and kept.
 */
import { UserError } from '../errors.js';
import { ifaceNameProblem } from '../iscsi/names.js';
import { formatPortal, parseTargetPortal, portalProblem } from '../iscsi/portal.js';
import { discoverNonpersistentArgv, discoverydbArgv, recordOpArgv } from '../iscsiadm/argv.js';
import { discoveryRecordFiles } from '../iscsiadm/record-secrets.js';
import type { Snapshot } from '../model.js';
import { DISCOVERY_CHAP_KEYS } from './chap-keys.js';
import { chapSteps } from './chap-steps.js';
import { discoveryRecordKey } from './effects.js';
import { addStep, newPlan, TIMEOUTS } from './plan-kit.js';
import type { ActionContext, Plan } from './types.js';

export interface ListTargetsInput {
  portal: string;
  /** open-iscsi iface the discovery goes out through. */
  iface: string;
  /** Discovery CHAP keys with a value (names only; values in ApplyOptions.secrets). */
  secretKeys: string[];
}

export function planListTargets(i: ListTargetsInput, _s: Snapshot, ctx: ActionContext): Plan {
  const bad = portalProblem(i.portal) ?? ifaceNameProblem(i.iface);
  if (bad) throw new UserError(`cannot list the targets of ${i.portal}: ${bad}`);
  const p = parseTargetPortal(i.portal)!;
  const portal = formatPortal(p.address, p.port);
  const db = discoverydbArgv(portal, i.iface);
  const plan = newPlan('list-targets', 'List targets', `${portal} (discovery CHAP)`, ctx);
  const existed = discoveryRecordFiles(ctx.host, portal).length > 0;
  const drop = existed
    ? []
    : [
        {
          why: 'delete the discovery record the listing created',
          argv: recordOpArgv(db, 'delete'),
          effect: { kind: 'record-delete' as const, record: discoveryRecordKey(portal, i.iface) },
        },
      ];
  if (existed) {
    plan.warnings.push(
      `a discovery record for ${portal} exists: the listing uses it as it is (its own CHAP settings) and keeps it`,
    );
  } else {
    addStep(plan, {
      id: 'discoverydb-new',
      why: 'a SendTargets discovery record to hold the CHAP settings (deleted at the end)',
      argv: recordOpArgv(db, 'new'),
      effect: { kind: 'record-new', record: discoveryRecordKey(portal, i.iface) },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
    });
    const target = { scope: 'discovery' as const, iqn: '', portal, iface: i.iface };
    for (const { group: _one, ...st } of chapSteps(db, DISCOVERY_CHAP_KEYS, i.secretKeys, portal, target))
      addStep(plan, { ...st, onFailure: drop });
  }
  addStep(plan, {
    id: 'discover',
    why: 'SendTargets through that record, storing no node record (-o nonpersistent)',
    argv: discoverNonpersistentArgv(portal, i.iface),
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    dynamic: { kind: 'list-targets', portal },
    effect: { kind: 'none' },
    onFailure: drop,
  });
  if (!existed)
    addStep(plan, {
      id: 'discoverydb-delete',
      why: 'delete the discovery record again',
      argv: recordOpArgv(db, 'delete'),
      effect: { kind: 'record-delete', record: discoveryRecordKey(portal, i.iface) },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
    });
  return plan;
}
