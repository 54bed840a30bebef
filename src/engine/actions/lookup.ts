/**
 * Finding objects in a snapshot by what an admin types (sid, sdX, H:C:T:L, dm-N, alias, IQN@portal)
 * and by fingerprint. Planners resolve names to fingerprints once; apply re-finds by fingerprint.
 */
import { decimalOf } from '../decimal.js';
import { UserError } from '../errors.js';
import { formatPortal, parseTargetPortal } from '../iscsi/portal.js';
import type {
  BlockBind,
  CsiVolume,
  KubeletVolume,
  MultipathMap,
  NodeRecord,
  ScsiDevice,
  Session,
  Snapshot,
} from '../model.js';
import { type PodNames, podLabel } from '../text/pod-names.js';

interface DeviceRef {
  device: ScsiDevice;
  session: Session;
}

/** Every SCSI device with its session. */
export function allDevices(s: Snapshot): DeviceRef[] {
  return s.sessions.flatMap((session) => session.devices.map((device) => ({ device, session })));
}

export function deviceByKey(s: Snapshot, key: string): DeviceRef | undefined {
  return allDevices(s).find((d) => d.device.key === key);
}

export function sessionByKey(s: Snapshot, key: string): Session | undefined {
  return s.sessions.find((x) => x.key === key);
}

/**
 * The kernel's session ids are an unsigned int counter (`session%u` in sysfs,
 * drivers/scsi/scsi_transport_iscsi.c): 1..2^32-1.
 */
const MAX_SID = 0xffff_ffff;

/**
 * The sid in a typed session ref — `7`, `session7` (sysfs) or `[7]` (iscsiadm's listing) — with
 * decimal digits only (decimal.ts); undefined for anything else, a fingerprint included.
 */
function sidOf(ref: string): number | undefined {
  const digits = ref.startsWith('session')
    ? ref.slice('session'.length)
    : ref.startsWith('[') && ref.endsWith(']')
      ? ref.slice(1, -1)
      : ref;
  const n = decimalOf(digits);
  return n !== undefined && n >= 1 && n <= MAX_SID ? n : undefined;
}

/** A session by `7`, `session7`, `[7]` or its fingerprint (keys hold `|`; anything else is a sid). */
export function findSession(s: Snapshot, ref: string): Session {
  const sid = sidOf(ref);
  if (sid === undefined && !ref.includes('|'))
    throw new UserError(
      `invalid session id ${JSON.stringify(ref)}`,
      `a sid is decimal digits 1..${MAX_SID} (also session7, [7]), as iscsi-console status shows`,
    );
  const found = sid !== undefined ? s.sessions.find((x) => x.sid === sid) : sessionByKey(s, ref);
  if (!found) {
    throw new UserError(
      `no session ${ref} on this node`,
      `sessions: ${s.sessions.map((x) => x.sid).join(', ') || 'none'} (iscsi-console status)`,
    );
  }
  return found;
}

/** Normalises a typed portal to the snapshot's `addr:port` form; throws on garbage. */
function normalisePortal(text: string): string {
  const p = parseTargetPortal(text);
  if (!p) throw new UserError(`invalid portal ${text}`, 'use ADDR[:PORT], with IPv6 as [ADDR]:PORT');
  return formatPortal(p.address, p.port);
}

/** `iqn` or `iqn@portal` as typed: the IQN, and the portal in the snapshot's `addr:port` form. */
export function parseTargetRef(ref: string): { iqn: string; portal?: string } {
  const at = ref.lastIndexOf('@');
  return at < 0 ? { iqn: ref } : { iqn: ref.slice(0, at), portal: normalisePortal(ref.slice(at + 1)) };
}

/** The sessions or node records of a target ref: every portal of the target when it names none. */
export function onTarget<T extends { targetIqn: string; portal: string }>(
  list: readonly T[],
  t: { iqn: string; portal?: string },
): T[] {
  return list.filter((x) => x.targetIqn === t.iqn && (t.portal === undefined || x.portal === t.portal));
}

/** `iqn` or `iqn@portal`: the sessions it names (all portals of the target without a portal). */
export function findTargetSessions(
  s: Snapshot,
  ref: string,
): { iqn: string; portal?: string; sessions: Session[] } {
  const t = parseTargetRef(ref);
  return { ...t, sessions: onTarget(s.sessions, t) };
}

/** A device by `sdc`, `/dev/sdc`, `H:C:T:L` or fingerprint. */
export function findDevice(s: Snapshot, ref: string): DeviceRef {
  const name = ref.replace(/^\/dev\//, '');
  const found = allDevices(s).find(
    (d) => d.device.name === name || d.device.hctl === ref || d.device.key === ref,
  );
  if (!found) {
    throw new UserError(
      `no iSCSI SCSI device ${ref} on this node`,
      'give a block device name (sdc), H:C:T:L (2:0:0:1) or a LUN fingerprint; see iscsi-console status',
    );
  }
  return found;
}

/** A multipath map by `dm-0`, `/dev/dm-0`, alias, `/dev/mapper/<alias>` or WWID. */
export function findMap(s: Snapshot, ref: string): MultipathMap {
  const name = ref.replace(/^\/dev\/(mapper\/)?/, '');
  const found = s.multipath.find((m) => m.name === name || m.alias === name || m.wwid === name);
  if (!found) {
    throw new UserError(
      `no multipath map ${ref} on this node`,
      `maps: ${s.multipath.map((m) => `${m.name} (${m.alias})`).join(', ') || 'none'}`,
    );
  }
  return found;
}

export function mapByWwid(s: Snapshot, wwid: string): MultipathMap | undefined {
  return s.multipath.find((m) => m.wwid === wwid);
}

/** Maps that have this sd device as a slave (kubelet FindMultipathDeviceForDevice, docs/kubelet-iscsi.md#attachdisk step 9). */
export function mapsOf(s: Snapshot, device: ScsiDevice): MultipathMap[] {
  return device.name ? s.multipath.filter((m) => m.slaves.includes(device.name!)) : [];
}

export function findVolume(s: Snapshot, path: string): KubeletVolume | undefined {
  const p = path.replace(/\/+$/, '');
  return s.kubelet.volumes.find((v) => v.path === p);
}

/**
 * The CSI volume a path belongs to: its staging path or a publish path, or the dir holding either
 * with its vol_data.json (what an admin copies from `status`).
 */
export function csiVolumeByPath(s: Snapshot, path: string): CsiVolume | undefined {
  const p = path.replace(/\/+$/, '');
  const is = (x: string | undefined) => x !== undefined && (x === p || x.slice(0, x.lastIndexOf('/')) === p);
  return s.csi?.volumes.find((v) => is(v.stagingPath) || v.publish.some((x) => is(x.path)));
}

/** Pod volumes still bind-mounted from (or linked to) a global kubelet dir. */
export function podMountsOf(s: Snapshot, globalPath: string) {
  return s.kubelet.podVolumes.filter((p) => p.globalPath === globalPath && p.mounted);
}

export function recordKey(r: Pick<NodeRecord, 'targetIqn' | 'portal' | 'iface'>): string {
  return `${r.targetIqn}|${r.portal}|${r.iface}`;
}

export function recordByKey(s: Snapshot, key: string): NodeRecord | undefined {
  return s.nodeRecords.find((r) => recordKey(r) === key);
}

/**
 * One use that keeps a device or map busy. `kind` is the refusal it raises (consent.ts lists the
 * ids); `what` is worded to follow "<name> is " in a refusal, or to stand in a list (the LUN listing).
 */
export interface Use {
  kind: 'mounted' | 'swap' | 'open' | 'held';
  what: string;
}

/** The uses of a device or map, in one order and one wording. */
function usesOf(u: {
  mounts: readonly string[];
  binds?: readonly BlockBind[];
  swap: boolean;
  loops: readonly string[];
  loopNote?: string;
  holders: readonly string[];
  pods?: PodNames;
}): Use[] {
  const out: Use[] = [];
  if (u.mounts.length > 0) out.push({ kind: 'mounted', what: `mounted on ${u.mounts.join(', ')}` });
  if (u.binds && u.binds.length > 0) out.push({ kind: 'mounted', what: describeBinds(u.binds, u.pods) });
  if (u.swap) out.push({ kind: 'swap', what: 'used as swap' });
  if (u.loops.length > 0)
    out.push({ kind: 'open', what: `open by loop device ${u.loops.join(', ')}${u.loopNote ?? ''}` });
  if (u.holders.length > 0) out.push({ kind: 'held', what: `held by ${u.holders.join(', ')}` });
  return out;
}

/**
 * What uses a device right now (mounts, node bind mounts, swap, loop devices, holders); [] when
 * unused. `unmounting`: mount paths and loop names an earlier step of the plan releases.
 * `withMapMounts`: count the mounts of a dm map over it too (a removal leaves those to mapUses).
 */
export function deviceUses(
  s: Snapshot,
  d: ScsiDevice,
  o: { ignoreHolders?: readonly string[]; unmounting?: ReadonlySet<string>; withMapMounts?: boolean } = {},
): Use[] {
  const unmounting = o.unmounting ?? new Set<string>();
  // A path's mountpoints include its dm map's.
  const viaMaps = new Set(o.withMapMounts ? [] : mapsOf(s, d).flatMap((m) => m.mountpoints));
  return usesOf({
    mounts: d.mountpoints.filter((m) => !unmounting.has(m) && !viaMaps.has(m)),
    binds: (d.blockBinds ?? []).filter((b) => !unmounting.has(b.path)),
    swap: d.swap,
    loops: d.loops.filter((l) => !unmounting.has(l)),
    loopNote: ' (kubelet block volume)',
    holders: d.holders.filter((h) => !(o.ignoreHolders ?? []).includes(h)),
    pods: s.kubelet.pods,
  });
}

/** Why a device cannot be removed right now, one line per use; [] when unused. */
export function deviceUse(
  s: Snapshot,
  d: ScsiDevice,
  ignoreHolders: readonly string[] = [],
  unmounting: ReadonlySet<string> = new Set(),
): string[] {
  return deviceUses(s, d, { ignoreHolders, unmounting }).map((u) => `${d.name ?? d.hctl} is ${u.what}`);
}

/** `bind-mounted at P (kubelet block volume, pod ns/name)` for a device's node bind mounts. */
export function describeBinds(binds: readonly BlockBind[], pods?: PodNames): string {
  const one = (b: BlockBind) =>
    b.kubelet
      ? `${b.path} (kubelet block volume${b.podUid ? `, pod ${podLabel(pods, b.podUid)}` : ''})`
      : b.path;
  return `bind-mounted at ${binds.map(one).join(', ')}`;
}

/** What uses a multipath map right now; [] when unused. */
export function mapUses(s: Snapshot, m: MultipathMap, unmounting: ReadonlySet<string> = new Set()): Use[] {
  const isMap = (dev: string) => dev === `/dev/${m.name}` || dev === `/dev/mapper/${m.alias}`;
  return usesOf({
    mounts: m.mountpoints.filter((p) => !unmounting.has(p)),
    swap: s.swaps.some(isMap),
    loops: Object.entries(s.loops)
      .filter(([, f]) => isMap(f))
      .map(([l]) => l),
    holders: m.holders,
  });
}

/** Why a multipath map cannot be flushed right now, one line per use; [] when unused. */
export function mapUse(s: Snapshot, m: MultipathMap, unmounting: ReadonlySet<string> = new Set()): string[] {
  return mapUses(s, m, unmounting).map((u) => `${m.name} (${m.alias}) is ${u.what}`);
}
