import { shellLine } from '../../actions/format.js';
import { formatPortal } from '../../iscsi/portal.js';
import { nodeStartupAllIfacesArgv } from '../../iscsiadm/argv.js';
import { plural } from '../../text/plural.js';
import { defineCheck } from '../define-check.js';
import { listSome } from '../evidence.js';
import { readDoctorNodeRecords } from '../node-db.js';

/** `10.0.0.1,3260,1` (DB dir name) → `10.0.0.1:3260`. */
function portalOf(dirName: string): string {
  const [address = '', port = '3260'] = dirName.split(',');
  return formatPortal(address, port);
}

/**
 * Records with node.startup=automatic log in again at boot, before kubelet decides anything: the
 * stale sessions an admin cleaned up come back (claytono/infra#576, docs/field-incidents.md#9-stale-sessions-come-back-after-reboot). kubelet itself sets
 * `manual` after login (docs/kubelet-iscsi.md#attachdisk step 5, PR #57475), so automatic records are usually foreign or left
 * by `--discover` under an iscsid.conf default of automatic.
 */
export const automaticStartup = defineCheck(
  { id: 'node-records.startup', title: 'no node records log in automatically at boot' },
  (ctx) => {
    const records = readDoctorNodeRecords(ctx.host);
    const auto = records.filter((r) => r.startup === 'automatic' || r.startup === 'onboot');
    if (auto.length === 0) {
      return { status: 'pass', evidence: `${plural(records.length, 'node record')}, none automatic` };
    }
    const first = auto[0]!;
    return {
      status: 'warn',
      evidence: `${plural(auto.length, 'record')} with node.startup=${first.startup}: ${listSome(auto.map((r) => `${r.targetIqn} ${portalOf(r.portal)}`))}`,
      hint: `${shellLine(nodeStartupAllIfacesArgv(portalOf(first.portal), first.targetIqn, 'manual'))} (or delete unused records)`,
    };
  },
);

/** Empty record files (an interrupted write) break discovery of that target (Longhorn CleanupScsiNodes, docs/field-incidents.md#14-empty-node-record-files). */
export const emptyRecords = defineCheck(
  { id: 'node-records.intact', title: 'node record files intact' },
  (ctx) => {
    const records = readDoctorNodeRecords(ctx.host);
    const empty = records.filter((r) => r.empty);
    if (empty.length === 0) return { status: 'pass', evidence: `${plural(records.length, 'node record')}` };
    return {
      status: 'warn',
      evidence: `${plural(empty.length, 'empty record file')}: ${listSome(
        empty.map((r) => r.path),
        2,
      )}`,
      hint: `remove the empty file(s), then rediscover: rm ${empty[0]!.path}`,
    };
  },
);
