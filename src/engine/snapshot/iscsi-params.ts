import type { Host } from '../host/host.js';
import type { ConnectionParams, SessionParams } from '../model.js';
import { type AttrTable, readAttr, readAttrs, readIntAttr } from './attr.js';

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

interface Negotiated {
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

/** One row per parameter, in the order iscsiadm -P 3 prints them (JSON keeps that order). */
const CONNECTION_ATTRS: AttrTable<ConnectionParams> = {
  headerDigest: ['header_digest', digest],
  dataDigest: ['data_digest', digest],
  maxRecvDataSegmentLength: ['max_recv_dlength', readIntAttr],
  maxXmitDataSegmentLength: ['max_xmit_dlength', readIntAttr],
};

const SESSION_ATTRS: AttrTable<SessionParams> = {
  firstBurstLength: ['first_burst_len', readIntAttr],
  maxBurstLength: ['max_burst_len', readIntAttr],
  immediateData: ['immediate_data', flag],
  initialR2T: ['initial_r2t', flag],
  maxOutstandingR2T: ['max_outstanding_r2t', readIntAttr],
  dataPduInOrder: ['data_pdu_in_order', flag],
  dataSequenceInOrder: ['data_seq_in_order', flag],
  erl: readIntAttr,
  targetResetTmo: ['tgt_reset_tmo', readIntAttr],
  lunResetTmo: ['lu_reset_tmo', readIntAttr],
  abortTmo: ['abort_tmo', readIntAttr],
};

/** The parameters a table names that `dir` has; undefined when it has none. */
function readParams<T extends object>(host: Host, dir: string, table: AttrTable<T>): T | undefined {
  const p = {} as T;
  return readAttrs(host, dir, table, p) > 0 ? p : undefined;
}

/** A connection's negotiated parameters (`dir` is its iscsi_connection attribute dir). */
function readConnectionParams(host: Host, dir: string): ConnectionParams | undefined {
  return readParams(host, dir, CONNECTION_ATTRS);
}

/** A session's negotiated parameters and error-handling timeouts (`dir` is its iscsi_session attribute dir). */
function readSessionParams(host: Host, dir: string): SessionParams | undefined {
  return readParams(host, dir, SESSION_ATTRS);
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
