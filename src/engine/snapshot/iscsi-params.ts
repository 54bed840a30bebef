import type { Host } from '../host/host.js';
import type { ConnectionParams, SessionParams } from '../model.js';
import { readAttr, readIntAttr } from './attr.js';

/**
 * The negotiated login keys `iscsiadm -m session -P 3` prints, read from sysfs the way iscsiadm
 * itself reads them (open-iscsi usr/iscsi_sysfs.c, iscsi_sysfs_get_negotiated_session_conf and
 * _conn_conf). The attribute names are the kernel's (drivers/scsi/scsi_transport_iscsi.c,
 * iscsi_session_attr / iscsi_conn_attr); libiscsi prints each as `%d` or `%u`
 * (drivers/scsi/libiscsi.c, iscsi_session_get_param / iscsi_conn_get_param).
 *
 * Only what -P 3 prints is read (4 connection and 11 session attributes), so the cost at 1,000
 * sessions stays a few reads per session; a missing attribute is simply left out.
 */

/** 0/1 flags as iscsiadm words them ("Yes"/"No"), kept as booleans. */
function flag(host: Host, path: string): boolean | undefined {
  const v = readAttr(host, path);
  return v === '1' ? true : v === '0' ? false : undefined;
}

/** header_digest/data_digest: 0 or 1 in sysfs, `None` or `CRC32C` in iscsiadm -P 3. */
function digest(host: Host, path: string): string | undefined {
  const v = readAttr(host, path);
  return v === '0' ? 'None' : v === '1' ? 'CRC32C' : v;
}

function setIf<T extends object, K extends keyof T>(o: T, k: K, v: T[K] | undefined): void {
  if (v !== undefined) o[k] = v;
}

/** A connection's negotiated parameters (`dir` is its iscsi_connection attribute dir). */
export function readConnectionParams(host: Host, dir: string): ConnectionParams | undefined {
  const p: ConnectionParams = {};
  setIf(p, 'headerDigest', digest(host, `${dir}/header_digest`));
  setIf(p, 'dataDigest', digest(host, `${dir}/data_digest`));
  setIf(p, 'maxRecvDataSegmentLength', readIntAttr(host, `${dir}/max_recv_dlength`));
  setIf(p, 'maxXmitDataSegmentLength', readIntAttr(host, `${dir}/max_xmit_dlength`));
  return Object.keys(p).length > 0 ? p : undefined;
}

/** A session's negotiated parameters and error-handling timeouts (`dir` is its iscsi_session attribute dir). */
export function readSessionParams(host: Host, dir: string): SessionParams | undefined {
  const p: SessionParams = {};
  setIf(p, 'firstBurstLength', readIntAttr(host, `${dir}/first_burst_len`));
  setIf(p, 'maxBurstLength', readIntAttr(host, `${dir}/max_burst_len`));
  setIf(p, 'immediateData', flag(host, `${dir}/immediate_data`));
  setIf(p, 'initialR2T', flag(host, `${dir}/initial_r2t`));
  setIf(p, 'maxOutstandingR2T', readIntAttr(host, `${dir}/max_outstanding_r2t`));
  setIf(p, 'dataPduInOrder', flag(host, `${dir}/data_pdu_in_order`));
  setIf(p, 'dataSequenceInOrder', flag(host, `${dir}/data_seq_in_order`));
  setIf(p, 'erl', readIntAttr(host, `${dir}/erl`));
  setIf(p, 'targetResetTmo', readIntAttr(host, `${dir}/tgt_reset_tmo`));
  setIf(p, 'lunResetTmo', readIntAttr(host, `${dir}/lu_reset_tmo`));
  setIf(p, 'abortTmo', readIntAttr(host, `${dir}/abort_tmo`));
  return Object.keys(p).length > 0 ? p : undefined;
}
