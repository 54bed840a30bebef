/** iscsiadm texts taken from the captures (err-*.txt, login-*.txt, logout-*.txt). */

/** usr/iscsi_err.c messages for the codes the simulator produces. */
export const ERR_TEXT: Record<number, string> = {
  2: 'session not found',
  6: 'encountered iSCSI database failure',
  7: 'invalid parameter',
  8: 'connection timed out',
  11: 'iSCSI PDU timed out',
  15: 'session exists',
  19: 'encountered non-retryable iSCSI login failure',
  20: 'could not connect to iscsid',
  21: 'no objects found',
  22: 'sysfs lookup failure',
  24: 'iSCSI login failed due to authorization failure',
};

/** What iscsiadm prints when iscsid is not running (err-discovery-without-iscsid.txt, twice: it retries). */
export const ISCSID_DOWN_NOISE =
  "System has not been booted with systemd as init system (PID 1). Can't operate.\n" +
  'Failed to connect to bus: Host is down\n' +
  'iscsiadm: can not connect to iSCSI daemon (111)!\n';

/** idbm_lock failure while another iscsiadm holds the DB (usr/idbm.c). */
export const DB_LOCKED =
  'iscsiadm: Maybe you are not root?\niscsiadm: Could not lock discovery DB: /run/lock/iscsi/lock.write: Resource temporarily unavailable\n';

export const NO_RECORDS = 'iscsiadm: No records found\n';
export const NO_SESSIONS = 'iscsiadm: No active sessions.\n';
export const NO_MATCHING_SESSIONS = 'iscsiadm: No matching sessions found\n';

export function sidLookupFailed(sid: number): string {
  return `iscsiadm: could not read session targetname: 5\niscsiadm: Could not get session info for sid ${sid}\n`;
}

/** `[iface: default, target: <iqn>, portal: <addr>,<port>]`. */
export function loginTag(iface: string, iqn: string, portalComma: string): string {
  return `[iface: ${iface}, target: ${iqn}, portal: ${portalComma}]`;
}

/** `[sid: 1, target: <iqn>, portal: <addr>,<port>]`. */
export function sessionTag(sid: number, iqn: string, portalComma: string): string {
  return `[sid: ${sid}, target: ${iqn}, portal: ${portalComma}]`;
}
