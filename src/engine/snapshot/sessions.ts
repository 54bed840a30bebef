import type { Host } from '../host/host.js';
import { basename, dirname, resolveLink } from '../host/path.js';
import { targetLunOf } from '../iscsi/lun.js';
import { formatPortal } from '../iscsi/portal.js';
import { type Connection, lunKey, type ScsiDevice, type Session, sessionKey } from '../model.js';
import { type AttrTable, cleanAttr, readAttr, readAttrs, readIntAttr, toInt, VANISHED } from './attr.js';
import { interned, readSharedAttr } from './interned.js';
import { forgetNegotiated, readNegotiated } from './iscsi-params.js';
import { trimmed } from './lists.js';
import {
  type DeviceExtras,
  type DeviceReadSink,
  readPartitionIndex,
  readScsiDevice,
} from './scsi-devices.js';

export const ISCSI_SESSION_CLASS = '/sys/class/iscsi_session';

/** A session as sysfs shows it: everything of Session except what the verdict step decides. */
export type SysfsSession = Omit<
  Session,
  'verdict' | 'health' | 'reasons' | 'kubeletBusy' | 'kubeletDisagreement' | 'kubeletVolumes' | 'pods'
>;

export interface SessionsRead {
  sessions: SysfsSession[];
  /** Per block device name: partitions with their dev numbers and holders. */
  extras: Map<string, DeviceExtras>;
}

const SESSION = /^session(\d+)$/;
const CONNECTION = /^connection\d+:(\d+)$/;
const TARGET = /^target\d+:\d+:\d+$/;
const HCTL = /^\d+:\d+:\d+:\d+$/;

/** persistent_* stay readable while the connection is down; address/port answer ENOTCONN then. */
const CONNECTION_ATTRS: AttrTable<Connection> = {
  persistentAddress: ['persistent_address', readAttr],
  persistentPort: ['persistent_port', readIntAttr],
  address: readAttr,
  port: readIntAttr,
  state: readSharedAttr,
};

/** One connection's attributes, `connection<sid>:<cid>` of a session's device dir. */
export function readConnection(host: Host, sessDir: string, name: string): Connection {
  const dir = `${sessDir}/${name}/iscsi_connection/${name}`;
  const c: Connection = { name };
  readAttrs(host, dir, CONNECTION_ATTRS, c);
  return c;
}

/**
 * A session's portal from its first connection: the persistent pair (readable while the connection
 * is down), else address/port; '' when neither is readable.
 */
export function connectionPortal(c: Connection | undefined): string {
  const addr = c?.persistentAddress ?? c?.address;
  const port = c?.persistentPort ?? c?.port;
  return addr !== undefined && port !== undefined ? formatPortal(addr, port) : '';
}

/** What names a session: its sid, where sysfs keeps it, and target, state and iface. */
interface SessionIdentity {
  sid: number;
  /** The class entry's link target (`../../devices/platform/host3/session3/iscsi_session/session3`). */
  link: string;
  /** The resolved `iscsi_session/session<N>` attribute dir. */
  attrDir: string;
  /** The session's device dir (`.../host<N>/session<M>`): its connections and targets. */
  sessDir: string;
  targetIqn: string;
  state: string;
  iface: string;
}

/**
 * A session's identity from its class entry, for the full read and the console's first look alike
 * (watchers/first-look.ts), so both key a session the same. The class entry is a relative symlink to
 * `/sys/devices/<...>/host<N>/session<M>/iscsi_session/session<M>` (captures single-sysfs.json),
 * resolved by hand (no realpath). Undefined when the session vanished (logout during the read).
 */
export function readSessionIdentity(
  host: Host,
  name: string,
  problems: string[],
): SessionIdentity | undefined {
  const sid = Number(SESSION.exec(name)?.[1]);
  if (!Number.isInteger(sid)) return undefined;
  const classPath = `${ISCSI_SESSION_CLASS}/${name}`;
  const link = host.readLink(classPath);
  if (link === undefined) return undefined;
  const attrDir = resolveLink(classPath, link);
  const tn = host.readTextOrError(`${attrDir}/targetname`);
  if ('error' in tn) {
    if (VANISHED.has(tn.error)) return undefined;
    problems.push(`${name}: targetname unreadable (${tn.error})`);
  }
  const targetIqn = 'value' in tn ? (cleanAttr(tn.value) ?? '') : '';
  const stateRead = host.readTextOrError(`${attrDir}/state`);
  if ('error' in stateRead && VANISHED.has(stateRead.error)) return undefined;
  const state = ('value' in stateRead ? interned(cleanAttr(stateRead.value)) : undefined) ?? 'UNKNOWN';
  const iface = readSharedAttr(host, `${attrDir}/ifacename`) ?? 'default';
  return { sid, link, attrDir, sessDir: dirname(dirname(attrDir)), targetIqn, state, iface };
}

/** Connection id from `connection<sid>:<cid>` (for ordering: the portal comes from the lowest cid). */
function cid(name: string): number {
  return Number(CONNECTION.exec(name)?.[1] ?? 0);
}

/**
 * Reads one session. The class entry is a relative symlink to
 * `/sys/devices/<...>/host<N>/session<M>/iscsi_session/session<M>` (captures single-sysfs.json);
 * resolving it by hand (no realpath) gives the session's device dir, whose parent is the SCSI host.
 * Returns undefined when the session vanished (logout during the read).
 */
function readSession(host: Host, name: string, into: DeviceReadSink): SysfsSession | undefined {
  const { problems } = into;
  const id = readSessionIdentity(host, name, problems);
  if (!id) return undefined;
  const { sid, attrDir, sessDir, targetIqn, state, iface } = id;
  const hostDir = dirname(sessDir);
  const hostName = basename(hostDir);
  const tpgt = readIntAttr(host, `${attrDir}/tpgt`) ?? -1;
  // The kernel shows a disabled recovery timer (-1: queue I/O forever) as "off"
  // (scsi_transport_iscsi.c, show_priv_session_recovery_tmo); keep the kernel's own -1.
  const tmoText = readAttr(host, `${attrDir}/recovery_tmo`);
  const recoveryTmo = tmoText === 'off' ? -1 : toInt(tmoText);
  const initiatorName = readSharedAttr(host, `${attrDir}/initiatorname`);

  const connections: Connection[] = [];
  const targets: string[] = [];
  for (const entry of host.readDir(sessDir)) {
    if (CONNECTION.test(entry)) connections.push(readConnection(host, sessDir, entry));
    else if (TARGET.test(entry)) targets.push(entry);
  }
  connections.sort((a, b) => cid(a.name) - cid(b.name));
  const portal = connectionPortal(connections[0]);
  if (portal === '') problems.push(`${name}: no readable connection address; portal unknown`);

  const hostNumber = toInt(/^host(\d+)$/.exec(hostName)?.[1]);
  const s: SysfsSession = {
    sid,
    name,
    targetIqn,
    portal,
    tpgt,
    iface,
    state,
    connections: trimmed(connections),
    devices: [],
    key: sessionKey(targetIqn, portal, iface),
  };
  if (initiatorName !== undefined) s.initiatorName = initiatorName;
  if (recoveryTmo !== undefined) s.recoveryTmo = recoveryTmo;
  const connDirs = new Map(
    connections.map((c) => [c.name, `${sessDir}/${c.name}/iscsi_connection/${c.name}`]),
  );
  const negotiated = readNegotiated(host, name, attrDir, connDirs);
  if (negotiated.session) s.params = negotiated.session;
  for (const c of connections) {
    const p = negotiated.connections.get(c.name);
    if (p) c.params = p;
  }
  if (hostNumber !== undefined) {
    s.hostNumber = hostNumber;
    const hostState = readSharedAttr(host, `${hostDir}/scsi_host/${hostName}/state`);
    if (hostState !== undefined) s.hostState = hostState;
    const ip = readAttr(host, `${hostDir}/iscsi_host/${hostName}/ipaddress`);
    if (ip !== undefined) s.ipaddress = ip;
    const netdev = readAttr(host, `${hostDir}/iscsi_host/${hostName}/netdev`);
    if (netdev !== undefined) s.netdev = netdev;
  }
  const devices: ScsiDevice[] = [];
  for (const t of targets) {
    const tdir = `${sessDir}/${t}`;
    for (const hctl of host.readDir(tdir)) {
      if (!HCTL.test(hctl)) continue;
      // Keys carry the target's LUN (what PVs and kubelet dirs say), not the kernel's number.
      const kernelLun = Number(hctl.slice(hctl.lastIndexOf(':') + 1));
      const key = lunKey(targetIqn, portal, iface, targetLunOf(kernelLun) ?? kernelLun);
      const d = readScsiDevice(host, `${tdir}/${hctl}`, hctl, key, into);
      if (d) devices.push(d);
    }
  }
  devices.sort((a, b) => a.lun - b.lun || a.target - b.target || a.channel - b.channel);
  s.devices = trimmed(devices);
  return s;
}

/** One session's read on its own: what it contributed to the snapshot's extras and problems. */
export interface SessionEntryRead {
  /** Undefined when the session vanished mid-read. */
  session?: SysfsSession;
  extras: Map<string, DeviceExtras>;
  problems: string[];
}

/**
 * Reads one session into its own extras/problems (so an incremental refresh can keep the other
 * sessions' parts and re-assemble them in the same order as a full read).
 */
export function readSessionEntry(
  host: Host,
  name: string,
  partitionIndex?: ReadonlyMap<string, string[]>,
): SessionEntryRead {
  const extras = new Map<string, DeviceExtras>();
  const problems: string[] = [];
  const session = readSession(host, name, {
    problems,
    extras,
    ...(partitionIndex ? { partitionIndex } : {}),
  });
  if (!session) problems.push(`${name} vanished while being read (logged out?)`);
  return session ? { session, extras, problems } : { extras, problems };
}

/** True for `session<N>` entries of the iscsi_session class (other names are skipped). */
export function isSessionName(name: string): boolean {
  return SESSION.test(name);
}

/**
 * Assembles per-session reads, in class listing order, into what a full read returns: sessions by
 * sid, extras and problems in listing order.
 */
export function assembleSessions(entries: readonly SessionEntryRead[], problems: string[]): SessionsRead {
  const extras = new Map<string, DeviceExtras>();
  const sessions: SysfsSession[] = [];
  for (const e of entries) {
    for (const p of e.problems) problems.push(p);
    for (const [k, v] of e.extras) extras.set(k, v);
    if (e.session) sessions.push(e.session);
  }
  sessions.sort((a, b) => a.sid - b.sid);
  return { sessions, extras };
}

/**
 * Reads every session under /sys/class/iscsi_session (absent class = modules not loaded = none).
 * Sessions that vanish mid-read are dropped with a note; they are gone on the node too.
 * `entries` receives each session's own read by class name (for incremental refreshes).
 */
export function readSessions(
  host: Host,
  problems: string[],
  entries?: Map<string, SessionEntryRead>,
): SessionsRead {
  const names = host.readDir(ISCSI_SESSION_CLASS).filter(isSessionName);
  forgetNegotiated(host, new Set(names));
  const partitionIndex = names.length > 0 ? readPartitionIndex(host) : undefined;
  const reads = names.map((name) => {
    const e = readSessionEntry(host, name, partitionIndex);
    entries?.set(name, e);
    return e;
  });
  return assembleSessions(reads, problems);
}
