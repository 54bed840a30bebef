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
 * Keys are negotiated at login, and again only when a connection logs in anew, which is a new TCP
 * connection with a new local port. So a session's parameters are kept per Host, keyed by its
 * connections' `local_port`, and read again only when one changed (or is unreadable: a connection
 * that is down answers ENOTCONN). A full read of 1,000 unchanged sessions then costs one read per
 * connection instead of fifteen per session.
 */

export interface Negotiated {
  session?: SessionParams;
  /** By connection name. */
  connections: Map<string, ConnectionParams>;
}

const kept = new WeakMap<Host, Map<string, { ports: string; value: Negotiated }>>();

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

/**
 * Session `name`'s negotiated parameters (`attrDir` its iscsi_session dir; `connDirs` its
 * connections' iscsi_connection dirs by name), from the kept read while every connection's local
 * port is the same as then.
 */
export function readNegotiated(
  host: Host,
  name: string,
  attrDir: string,
  connDirs: ReadonlyMap<string, string>,
): Negotiated {
  let byHost = kept.get(host);
  if (!byHost) {
    byHost = new Map();
    kept.set(host, byHost);
  }
  const ports = [...connDirs]
    .map(([c, dir]) => `${c}=${readAttr(host, `${dir}/local_port`) ?? '?'}`)
    .join(',');
  const hit = byHost.get(name);
  if (hit && hit.ports === ports && !ports.includes('=?')) return hit.value;
  const value: Negotiated = { connections: new Map() };
  const session = readSessionParams(host, attrDir);
  if (session) value.session = session;
  for (const [c, dir] of connDirs) {
    const p = readConnectionParams(host, dir);
    if (p) value.connections.set(c, p);
  }
  byHost.set(name, { ports, value });
  return value;
}

/** Forgets sessions no longer listed (logged out: sids are never reused). */
export function forgetNegotiated(host: Host, live: ReadonlySet<string>): void {
  const byHost = kept.get(host);
  if (!byHost) return;
  for (const name of byHost.keys()) if (!live.has(name)) byHost.delete(name);
}
