/**
 * iscsiadm exit codes: names from open-iscsi include/iscsi_err.h, messages from usr/iscsi_err.c
 * (the text iscsiadm prints as "initiator reported error (N - message)"), hints from field reports
 * (docs/field-incidents.md, docs/iscsiadm.md#exit-codes).
 */
interface IscsiadmCode {
  code: number;
  name: string;
  message: string;
  hint?: string;
}

/** open-iscsi's own facts, in its enum order: [code, name, message]. */
const UPSTREAM = [
  [0, 'ISCSI_SUCCESS', ''],
  [1, 'ISCSI_ERR', 'unknown error'],
  [2, 'ISCSI_ERR_SESS_NOT_FOUND', 'session not found'],
  [3, 'ISCSI_ERR_NOMEM', 'no available memory'],
  [4, 'ISCSI_ERR_TRANS', 'encountered connection failure'],
  [5, 'ISCSI_ERR_LOGIN', 'encountered iSCSI login failure'],
  [6, 'ISCSI_ERR_IDBM', 'encountered iSCSI database failure'],
  [7, 'ISCSI_ERR_INVAL', 'invalid parameter'],
  [8, 'ISCSI_ERR_TRANS_TIMEOUT', 'connection timed out'],
  [9, 'ISCSI_ERR_INTERNAL', 'internal error'],
  [10, 'ISCSI_ERR_LOGOUT', 'encountered iSCSI logout failure'],
  [11, 'ISCSI_ERR_PDU_TIMEOUT', 'iSCSI PDU timed out'],
  [
    12,
    'ISCSI_ERR_TRANS_NOT_FOUND',
    'iSCSI driver not found. Please make sure it is loaded, and retry the operation',
  ],
  [13, 'ISCSI_ERR_ACCESS', 'daemon access denied'],
  [14, 'ISCSI_ERR_TRANS_CAPS', 'iSCSI driver does not support requested capability.'],
  [15, 'ISCSI_ERR_SESS_EXISTS', 'session exists'],
  [16, 'ISCSI_ERR_INVALID_MGMT_REQ', 'Unknown request'],
  [17, 'ISCSI_ERR_ISNS_UNAVAILABLE', 'iSNS service not supported'],
  [18, 'ISCSI_ERR_ISCSID_COMM_ERR', 'could not communicate to iscsid'],
  [19, 'ISCSI_ERR_FATAL_LOGIN', 'encountered non-retryable iSCSI login failure'],
  [20, 'ISCSI_ERR_ISCSID_NOTCONN', 'could not connect to iscsid'],
  [21, 'ISCSI_ERR_NO_OBJS_FOUND', 'no objects found'],
  [22, 'ISCSI_ERR_SYSFS_LOOKUP', 'sysfs lookup failure'],
  [23, 'ISCSI_ERR_HOST_NOT_FOUND', 'host not found'],
  [24, 'ISCSI_ERR_LOGIN_AUTH_FAILED', 'iSCSI login failed due to authorization failure'],
  [25, 'ISCSI_ERR_ISNS_QUERY', 'iSNS query failed'],
  [26, 'ISCSI_ERR_ISNS_REG_FAILED', 'iSNS registration failed'],
  [27, 'ISCSI_ERR_OP_NOT_SUPP', 'operation not supported'],
  [28, 'ISCSI_ERR_BUSY', 'device or resource in use'],
  [29, 'ISCSI_ERR_AGAIN', 'operation failed but retry may succeed'],
  [30, 'ISCSI_ERR_UNKNOWN_DISCOVERY_TYPE', 'unknown discovery type'],
  [31, 'ISCSI_ERR_CHILD_TERMINATED', 'child process terminated'],
  [32, 'ISCSI_ERR_SESSION_NOT_CONNECTED', 'target likely not connected'],
  [33, 'ISCSI_ERR_REQ_TIMEDOUT', 'iscsid request timed out'],
] as const satisfies readonly (readonly [code: number, name: string, message: string])[];

/** What an admin should do about a code, from field reports; keyed by upstream name. */
const HINTS: Readonly<Partial<Record<(typeof UPSTREAM)[number][1], string>>> = {
  ISCSI_ERR_SESS_NOT_FOUND:
    'The session is already gone; on logout this counts as done (kubelet ignores it too).',
  ISCSI_ERR_TRANS: 'Check that the portal is reachable from this node (routing, firewall, target running).',
  ISCSI_ERR_LOGIN: 'The target refused the login: check its ACL for this initiator name.',
  ISCSI_ERR_IDBM:
    'The open-iscsi node database was locked by another iscsiadm; retried with backoff. A stale lock.write after a crash blocks every database operation.',
  ISCSI_ERR_INVAL: 'A record key or value was rejected.',
  ISCSI_ERR_TRANS_TIMEOUT: 'The portal did not answer: is the target up and the port (usually 3260) open?',
  ISCSI_ERR_INTERNAL: 'Restarting iscsid has fixed this in the field.',
  ISCSI_ERR_PDU_TIMEOUT: 'The portal refused or dropped the connection (closed port?).',
  ISCSI_ERR_TRANS_NOT_FOUND: 'Load the transport module: modprobe iscsi_tcp.',
  ISCSI_ERR_ACCESS: 'Run as root.',
  ISCSI_ERR_SESS_EXISTS: 'Already logged in: treated as success and verified from sysfs.',
  ISCSI_ERR_ISCSID_COMM_ERR: 'iscsid died or its version differs from iscsiadm: run `iscsi-console doctor`.',
  ISCSI_ERR_FATAL_LOGIN:
    'The target does not know this IQN (or refuses this initiator): check the IQN and the ACL.',
  ISCSI_ERR_ISCSID_NOTCONN:
    'iscsid is not running: start it (systemctl start iscsid) or, in a pod, use --exec nsenter.',
  ISCSI_ERR_NO_OBJS_FOUND:
    'Nothing matched (no session or no record): on logout and delete this counts as done.',
  ISCSI_ERR_SYSFS_LOOKUP: 'The session id no longer exists.',
  ISCSI_ERR_LOGIN_AUTH_FAILED:
    'CHAP failed: check the username and secret (and whether the target requires CHAP at all).',
};

const TABLE: readonly IscsiadmCode[] = UPSTREAM.map(([code, name, message]) =>
  HINTS[name] === undefined ? { code, name, message } : { code, name, message, hint: HINTS[name] },
);

const BY_CODE = new Map(TABLE.map((e) => [e.code, e]));

/** Named codes, for readable comparisons in the engine. */
export const IscsiErr = {
  SUCCESS: 0,
  SESS_NOT_FOUND: 2,
  TRANS: 4,
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
