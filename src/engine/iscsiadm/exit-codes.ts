/**
 * iscsiadm exit codes: names from open-iscsi include/iscsi_err.h, messages from usr/iscsi_err.c
 * (the text iscsiadm prints as "initiator reported error (N - message)"), hints from field reports
 * (docs/field-incidents.md, docs/iscsiadm.md#exit-codes).
 */
export interface IscsiadmCode {
  code: number;
  name: string;
  message: string;
  hint?: string;
}

const TABLE: readonly IscsiadmCode[] = [
  { code: 0, name: 'ISCSI_SUCCESS', message: '' },
  { code: 1, name: 'ISCSI_ERR', message: 'unknown error' },
  {
    code: 2,
    name: 'ISCSI_ERR_SESS_NOT_FOUND',
    message: 'session not found',
    hint: 'The session is already gone; on logout this counts as done (kubelet ignores it too).',
  },
  { code: 3, name: 'ISCSI_ERR_NOMEM', message: 'no available memory' },
  {
    code: 4,
    name: 'ISCSI_ERR_TRANS',
    message: 'encountered connection failure',
    hint: 'Check that the portal is reachable from this node (routing, firewall, target running).',
  },
  {
    code: 5,
    name: 'ISCSI_ERR_LOGIN',
    message: 'encountered iSCSI login failure',
    hint: 'The target refused the login: check its ACL for this initiator name.',
  },
  {
    code: 6,
    name: 'ISCSI_ERR_IDBM',
    message: 'encountered iSCSI database failure',
    hint: 'The open-iscsi node database was locked by another iscsiadm; retried with backoff. A stale lock.write after a crash blocks every database operation.',
  },
  {
    code: 7,
    name: 'ISCSI_ERR_INVAL',
    message: 'invalid parameter',
    hint: 'A record key or value was rejected.',
  },
  {
    code: 8,
    name: 'ISCSI_ERR_TRANS_TIMEOUT',
    message: 'connection timed out',
    hint: 'The portal did not answer: is the target up and the port (usually 3260) open?',
  },
  {
    code: 9,
    name: 'ISCSI_ERR_INTERNAL',
    message: 'internal error',
    hint: 'Restarting iscsid has fixed this in the field.',
  },
  { code: 10, name: 'ISCSI_ERR_LOGOUT', message: 'encountered iSCSI logout failure' },
  {
    code: 11,
    name: 'ISCSI_ERR_PDU_TIMEOUT',
    message: 'iSCSI PDU timed out',
    hint: 'The portal refused or dropped the connection (closed port?).',
  },
  {
    code: 12,
    name: 'ISCSI_ERR_TRANS_NOT_FOUND',
    message: 'iSCSI driver not found. Please make sure it is loaded, and retry the operation',
    hint: 'Load the transport module: modprobe iscsi_tcp.',
  },
  { code: 13, name: 'ISCSI_ERR_ACCESS', message: 'daemon access denied', hint: 'Run as root.' },
  { code: 14, name: 'ISCSI_ERR_TRANS_CAPS', message: 'iSCSI driver does not support requested capability.' },
  {
    code: 15,
    name: 'ISCSI_ERR_SESS_EXISTS',
    message: 'session exists',
    hint: 'Already logged in: treated as success and verified from sysfs.',
  },
  { code: 16, name: 'ISCSI_ERR_INVALID_MGMT_REQ', message: 'Unknown request' },
  { code: 17, name: 'ISCSI_ERR_ISNS_UNAVAILABLE', message: 'iSNS service not supported' },
  {
    code: 18,
    name: 'ISCSI_ERR_ISCSID_COMM_ERR',
    message: 'could not communicate to iscsid',
    hint: 'iscsid died or its version differs from iscsiadm: run `iscsi-console doctor`.',
  },
  {
    code: 19,
    name: 'ISCSI_ERR_FATAL_LOGIN',
    message: 'encountered non-retryable iSCSI login failure',
    hint: 'The target does not know this IQN (or refuses this initiator): check the IQN and the ACL.',
  },
  {
    code: 20,
    name: 'ISCSI_ERR_ISCSID_NOTCONN',
    message: 'could not connect to iscsid',
    hint: 'iscsid is not running: start it (systemctl start iscsid) or, in a pod, use --exec nsenter.',
  },
  {
    code: 21,
    name: 'ISCSI_ERR_NO_OBJS_FOUND',
    message: 'no objects found',
    hint: 'Nothing matched (no session or no record): on logout and delete this counts as done.',
  },
  {
    code: 22,
    name: 'ISCSI_ERR_SYSFS_LOOKUP',
    message: 'sysfs lookup failure',
    hint: 'The session id no longer exists.',
  },
  { code: 23, name: 'ISCSI_ERR_HOST_NOT_FOUND', message: 'host not found' },
  {
    code: 24,
    name: 'ISCSI_ERR_LOGIN_AUTH_FAILED',
    message: 'iSCSI login failed due to authorization failure',
    hint: 'CHAP failed: check the username and secret (and whether the target requires CHAP at all).',
  },
  { code: 25, name: 'ISCSI_ERR_ISNS_QUERY', message: 'iSNS query failed' },
  { code: 26, name: 'ISCSI_ERR_ISNS_REG_FAILED', message: 'iSNS registration failed' },
  { code: 27, name: 'ISCSI_ERR_OP_NOT_SUPP', message: 'operation not supported' },
  { code: 28, name: 'ISCSI_ERR_BUSY', message: 'device or resource in use' },
  { code: 29, name: 'ISCSI_ERR_AGAIN', message: 'operation failed but retry may succeed' },
  { code: 30, name: 'ISCSI_ERR_UNKNOWN_DISCOVERY_TYPE', message: 'unknown discovery type' },
  { code: 31, name: 'ISCSI_ERR_CHILD_TERMINATED', message: 'child process terminated' },
  { code: 32, name: 'ISCSI_ERR_SESSION_NOT_CONNECTED', message: 'target likely not connected' },
  { code: 33, name: 'ISCSI_ERR_REQ_TIMEDOUT', message: 'iscsid request timed out' },
];

const BY_CODE = new Map(TABLE.map((e) => [e.code, e]));

/** Named codes, for readable comparisons in the engine. */
export const IscsiErr = {
  SUCCESS: 0,
  SESS_NOT_FOUND: 2,
  IDBM: 6,
  TRANS_TIMEOUT: 8,
  PDU_TIMEOUT: 11,
  SESS_EXISTS: 15,
  FATAL_LOGIN: 19,
  ISCSID_NOTCONN: 20,
  NO_OBJS_FOUND: 21,
  SYSFS_LOOKUP: 22,
  LOGIN_AUTH_FAILED: 24,
} as const;

/** The entry for an exit code; unknown codes get a generic entry rather than undefined. */
export function describeIscsiadmExit(code: number): IscsiadmCode {
  return BY_CODE.get(code) ?? { code, name: `UNKNOWN_${code}`, message: 'unknown exit code' };
}

export const ISCSIADM_EXIT_CODES: readonly IscsiadmCode[] = TABLE;
