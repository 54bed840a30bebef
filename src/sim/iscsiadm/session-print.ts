import { EMPTY, ISCSI_VERSION } from '../iscsid/node-db.js';
import { sdName } from '../kernel/names.js';
import type { SimSession } from '../types.js';

/** `addr:port` / `[v6]:port` as session_info.c prints portals (brackets when the address has no dot). */
function portal(addr: string, port: number, tpgt: number): string {
  return `${addr.includes('.') ? addr : `[${addr}]`}:${port},${tpgt}`;
}

/** `iscsiadm -m session` (-P 0): session_info_print_flat. */
export function printFlat(sessions: readonly SimSession[]): string {
  return sessions
    .map((s) => `tcp: [${s.sid}] ${portal(s.portal.address, s.portal.port, s.tpgt)} ${s.iqn} (non-flash)\n`)
    .join('');
}

/** Connection and iscsid states iscsiadm shows for a session state (usr/session_info.c conn_state[]). */
function states(s: SimSession): [conn: string, internal: string] {
  return s.state === 'LOGGED_IN' ? ['LOGGED IN', 'NO CHANGE'] : ['TRANSPORT WAIT', 'REOPEN'];
}

/**
 * `iscsiadm -m session -P 1|2|3`: session_info_print_tree, byte for byte as single-session-P3.txt
 * and mp-session-P3.txt (Target printed once per target; portal lines only when the portal changes).
 */
export function printTree(sessions: readonly SimSession[], level: number): string {
  const sorted = [...sessions].sort((a, b) => a.iqn.localeCompare(b.iqn) || a.sid - b.sid);
  let out = level >= 3 ? `iSCSI Transport Class version 2.0-870\nversion ${ISCSI_VERSION}\n` : '';
  let prev: SimSession | undefined;
  for (const s of sorted) {
    const newTarget = !prev || prev.iqn !== s.iqn;
    if (newTarget) out += `Target: ${s.iqn} (non-flash)\n`;
    if (newTarget || prev!.portal.address !== s.portal.address || prev!.portal.port !== s.portal.port) {
      out += `\tCurrent Portal: ${portal(s.portal.address, s.portal.port, s.tpgt)}\n`;
      out += `\tPersistent Portal: ${portal(s.portal.address, s.portal.port, s.tpgt)}\n`;
    } else {
      out += '\n';
    }
    prev = s;
    const [conn, internal] = states(s);
    const ip =
      s.state === 'LOGGED_IN'
        ? s.localAddress.includes('.')
          ? s.localAddress
          : `[${s.localAddress}]`
        : EMPTY;
    out +=
      '\t\t**********\n\t\tInterface:\n\t\t**********\n' +
      `\t\tIface Name: ${s.iface}\n\t\tIface Transport: tcp\n\t\tIface Initiatorname: ${s.initiatorName}\n` +
      `\t\tIface IPaddress: ${ip}\n\t\tIface HWaddress: default\n\t\tIface Netdev: default\n` +
      `\t\tSID: ${s.sid}\n\t\tiSCSI Connection State: ${conn}\n\t\tiSCSI Session State: ${s.state}\n` +
      `\t\tInternal iscsid Session State: ${internal}\n`;
    if (level < 2) continue;
    out +=
      '\t\t*********\n\t\tTimeouts:\n\t\t*********\n' +
      `\t\tRecovery Timeout: ${s.recoveryTmo}\n\t\tTarget Reset Timeout: 30\n\t\tLUN Reset Timeout: 30\n\t\tAbort Timeout: 15\n` +
      '\t\t*****\n\t\tCHAP:\n\t\t*****\n' +
      `\t\tusername: ${s.chapUser ?? EMPTY}\n\t\tpassword: ********\n\t\tusername_in: ${s.chapUserIn ?? EMPTY}\n\t\tpassword_in: ********\n` +
      '\t\t************************\n\t\tNegotiated iSCSI params:\n\t\t************************\n' +
      '\t\tHeaderDigest: None\n\t\tDataDigest: None\n\t\tMaxRecvDataSegmentLength: 262144\n' +
      '\t\tMaxXmitDataSegmentLength: 8192\n\t\tFirstBurstLength: 65536\n\t\tMaxBurstLength: 262144\n' +
      '\t\tImmediateData: Yes\n\t\tInitialR2T: Yes\n\t\tMaxOutstandingR2T: 1\n';
    if (level < 3) continue;
    out += '\t\t************************\n\t\tAttached SCSI devices:\n\t\t************************\n';
    out += `\t\tHost Number: ${s.host}\tState: running\n`;
    for (const d of [...s.devices.values()].sort((a, b) => a.lun - b.lun)) {
      out += `\t\tscsi${s.host} Channel 00 Id 0 Lun: ${d.lun}\n`;
      if (d.sdIndex !== undefined)
        out += `\t\t\tAttached scsi disk ${sdName(d.sdIndex)}\t\tState: ${d.state}\n`;
    }
  }
  return out;
}
