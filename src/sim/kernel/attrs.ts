import type { SimScsiDevice, SimSession } from '../types.js';

/**
 * Attribute files the simulated kernel materialises, with the values and formats of the real
 * captures (single-sysfs.json, mp-sysfs.json: Debian 6.1, iscsi_tcp, tgt). Noise the engine never
 * reads (power/, queue/, mq/, bsg/, scsi_generic/, vpd pages, io counters, uevent) is left out:
 * a 1,000-session node must materialise in seconds. test/sim/conformance.test.ts keeps this honest.
 */
export type Attr = readonly [name: string, value: string, mode?: number];

/** Write-only attributes (`scan`, `delete`): the capture marks them NOREAD, mode 0200. */
const WRITE_ONLY = 0o200;
/** Kernel-writable attributes (`state`, `recovery_tmo`, `timeout`). */
export const RW = 0o644;

const NULL = '(null)';

/** /sys/devices/platform/hostH/iscsi_host/hostH. `ipaddress` is the local address of the connection. */
export function iscsiHostAttrs(s: SimSession): Attr[] {
  return [
    ['hwaddress', NULL],
    ['initiatorname', NULL],
    ['ipaddress', s.localAddress],
    ['netdev', NULL],
  ];
}

/** /sys/devices/platform/hostH/scsi_host/hostH. */
export function scsiHostAttrs(s: SimSession): Attr[] {
  return [
    ['active_mode', 'Initiator'],
    ['can_queue', '113'],
    ['cmd_per_lun', '32'],
    ['host_busy', '0'],
    ['host_reset', '', WRITE_ONLY],
    ['proc_name', 'iscsi_tcp'],
    ['scan', '', WRITE_ONLY],
    ['state', 'running', RW],
    ['supported_mode', 'Initiator'],
    ['unique_id', String(s.host)],
  ];
}

/** /sys/devices/platform/hostH/sessionS/iscsi_session/sessionS (values as negotiated with tgt). */
export function sessionAttrs(s: SimSession, creatorPid: number): Attr[] {
  return [
    ['abort_tmo', '15'],
    ['creator', String(creatorPid)],
    ['data_pdu_in_order', '1'],
    ['data_seq_in_order', '1'],
    ['erl', '0'],
    ['fast_abort', '1'],
    ['first_burst_len', '65536'],
    ['ifacename', s.iface],
    ['immediate_data', '1'],
    ['initial_r2t', '1'],
    ['initiatorname', s.initiatorName],
    ['lu_reset_tmo', '30'],
    ['max_burst_len', '262144'],
    ['max_outstanding_r2t', '1'],
    // The kernel never shows CHAP secrets: password reads back "(null)" unless set, and tgt
    // sessions in the capture show "(null)" for all four.
    ['password', NULL],
    ['password_in', NULL],
    ['recovery_tmo', String(s.recoveryTmo), RW],
    ['state', s.state],
    ['target_id', '0'],
    ['target_state', 'SCANNED'],
    ['targetname', s.iqn],
    ['tgt_reset_tmo', '30'],
    ['tpgt', String(s.tpgt)],
    ['username', s.chapUser ?? NULL],
    ['username_in', s.chapUserIn ?? NULL],
  ];
}

/** Connection state attribute on 6.1: `up` while logged in, `failed` after a connection error. */
function connectionState(s: SimSession): string {
  return s.state === 'LOGGED_IN' ? 'up' : 'failed';
}

/** /sys/devices/platform/hostH/sessionS/connectionS:0/iscsi_connection/connectionS:0. */
export function connectionAttrs(s: SimSession): Attr[] {
  return [
    ['address', s.portal.address],
    ['data_digest', '0'],
    ['exp_statsn', '280'],
    ['header_digest', '0'],
    ['local_port', String(s.localPort)],
    ['max_recv_dlength', '262144'],
    ['max_xmit_dlength', '8192'],
    ['persistent_address', s.portal.address],
    ['persistent_port', String(s.portal.port)],
    ['ping_tmo', '5'],
    ['port', String(s.portal.port)],
    ['recv_tmo', '5'],
    ['state', connectionState(s)],
  ];
}

/** Space-padded INQUIRY strings, as sysfs shows them (vendor 8, model 16 characters). */
function pad(s: string, n: number): string {
  return s.padEnd(n, ' ');
}

/** /sys/devices/platform/hostH/sessionS/targetH:0:0/H:0:0:L (tgt: vendor IET, LUN 0 a controller). */
export function scsiDeviceAttrs(d: SimScsiDevice, wwid: string): Attr[] {
  const controller = d.type === 12;
  return [
    ['delete', '', WRITE_ONLY],
    ['device_blocked', '0'],
    ['device_busy', '0'],
    ['eh_timeout', '10', RW],
    ['model', pad(controller ? 'Controller' : 'VIRTUAL-DISK', 16)],
    ['queue_depth', '32', RW],
    ['rescan', '', WRITE_ONLY],
    ['rev', '0001'],
    ['scsi_level', '6'],
    ['state', d.state, RW],
    ['timeout', '30', RW],
    ['type', String(d.type)],
    ['vendor', pad('IET', 8)],
    ['wwid', wwid],
  ];
}

/** Attributes of a block device directory (sd disk, dm map, loop, partition). */
export function blockAttrs(
  devt: { major: number; minor: number },
  sectors: number,
  capability: string,
  ro = false,
): Attr[] {
  return [
    ['capability', capability],
    ['dev', `${devt.major}:${devt.minor}`],
    // I/O in flight (reads, writes), as %8u %8u: a busy-device signal.
    ['inflight', '       0        0'],
    ['removable', '0'],
    ['ro', ro ? '1' : '0'],
    ['size', String(sectors)],
  ];
}
