import { type CheckIdentity, type CheckVerdict, defineCheck } from '../define-check.js';
import { ISCSID_CONF, readIscsidConf } from '../iscsid-conf.js';
import { SOURCES } from '../sources.js';
import type { DoctorContext } from '../types.js';
import { PROTECTED_MOUNTS, rootOnIscsiMounts } from './root-on-iscsi.js';

const STARTUP = 'node.startup';
const NOOP_INTERVAL = 'node.conn[0].timeo.noop_out_interval';
const NOOP_TIMEOUT = 'node.conn[0].timeo.noop_out_timeout';
/** etc/iscsid.conf: "The value is in seconds and the default is 5 seconds" (both). */
const NOOP_DEFAULT = '5';

/**
 * A check of one iscsid.conf setting. Without the file there is nothing to judge: the check is
 * skipped, saying what applies instead (open-iscsi's defaults).
 */
function confCheck(
  identity: CheckIdentity,
  instead: string,
  judge: (conf: Map<string, string>, ctx: DoctorContext) => CheckVerdict,
) {
  return defineCheck(identity, (ctx): CheckVerdict => {
    const conf = readIscsidConf(ctx.host);
    if (!conf) return { status: 'skip', evidence: `${ISCSID_CONF} not found: ${instead}` };
    return judge(conf, ctx);
  });
}

/**
 * iscsid.conf's node.startup is copied into every record discovery creates. kubelet logs in and then
 * sets its own records to manual, so that the node never logs in at boot before kubelet decides
 * anything; a default of automatic makes every other record (an admin's `--discover`, a driver that
 * does not reset it) log in at each boot. The records themselves are the node-records.startup check.
 */
export const iscsidConfStartup = confCheck(
  { id: 'iscsid-conf.startup', title: 'iscsid.conf node.startup', source: SOURCES.kubeletStartup },
  "open-iscsi's built-in default (manual) applies",
  (conf) => {
    const v = conf.get(STARTUP);
    if (v === 'automatic' || v === 'onboot') {
      return {
        status: 'warn',
        evidence: `${STARTUP} = ${v} in ${ISCSID_CONF}: every record discovered from now on logs in at boot, before kubelet decides anything`,
        hint: `set "${STARTUP} = manual" in ${ISCSID_CONF} (existing records keep their value: see node-records.startup)`,
      };
    }
    return {
      status: 'pass',
      evidence: `${STARTUP} = ${v ?? 'unset (default manual)'} in ${ISCSID_CONF}`,
    };
  },
);

/**
 * NOP-Out pings find a dead connection in interval + timeout seconds; with them off (0) a dead
 * path is noticed only when a SCSI command times out, so multipath fails over late and a hung
 * session goes unseen. open-iscsi turns them off only for iSCSI root (and tape).
 */
export const noopOut = confCheck(
  { id: 'iscsid-conf.noop-out', title: 'iscsid.conf NOP-Out pings', source: SOURCES.noopOut },
  "open-iscsi's defaults (5 s, 5 s) apply",
  (conf, ctx) => {
    const interval = conf.get(NOOP_INTERVAL) ?? `${NOOP_DEFAULT} (default)`;
    const timeout = conf.get(NOOP_TIMEOUT) ?? `${NOOP_DEFAULT} (default)`;
    const evidence = `noop_out_interval ${interval}, noop_out_timeout ${timeout} in ${ISCSID_CONF}`;
    const off = [interval, timeout].some((v) => Number.parseInt(v, 10) === 0);
    if (!off) return { status: 'pass', evidence };
    const root = rootOnIscsiMounts(ctx.host);
    if (root.length > 0) {
      return {
        status: 'pass',
        evidence: `${evidence}; pings off, as open-iscsi advises for iSCSI root (${root.join(', ')})`,
      };
    }
    return {
      status: 'warn',
      evidence: `${evidence}: pings are off, so a dead connection is noticed only when a SCSI command times out`,
      hint: `set "${NOOP_INTERVAL} = 5" and "${NOOP_TIMEOUT} = 10" in ${ISCSID_CONF} (new records; existing ones: iscsiadm -m node -o update -n ${NOOP_TIMEOUT} -v 10); off is for iSCSI root (${PROTECTED_MOUNTS.join(', ')} on iSCSI) only`,
    };
  },
);
