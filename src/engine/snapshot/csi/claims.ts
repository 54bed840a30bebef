/**
 * Which CSI driver claims each session, and why (docs/csi-drivers.md "How the console decides"):
 * a device mounted at a kubelet CSI staging/publish path; a driver's own file naming the session's
 * target and portal; a kubelet CSI dir whose volume handle or PV name is in the target name; or
 * Longhorn's target prefix with its /dev/longhorn link present. Indexes are built once per snapshot
 * so each session costs a few map lookups (1,000s of sessions, bench/README.md).
 */
import type { Host } from '../../host/host.js';
import { normalizePortal } from '../../iscsi/portal.js';
import type { CsiDriverFile, CsiState, CsiVolume, SessionClaim, Verdict } from '../../model.js';
import { none } from '../lists.js';
import type { SysfsSession } from '../sessions.js';
import {
  csiVolumePods,
  csiVolumeMounted as isMounted,
  csiVolumeName as volName,
  csiVolumePaths as volumePaths,
} from './describe.js';
import {
  CSI_DRIVER_ISCSI,
  DEMOCRATIC_CSI,
  driverFromTargetName,
  driverLabel,
  LONGHORN,
  LONGHORN_DEV_DIR,
  longhornVolume,
  TRIDENT,
} from './paths.js';

/** A session's claims, and the kubelet CSI volumes they are of (each once, in the order found). */
interface FoundClaims {
  claims: SessionClaim[];
  volumes: readonly CsiVolume[];
}

export interface ClaimIndex {
  claimsOf(s: SysfsSession): FoundClaims;
  /**
   * A driver the session most likely belongs to when nothing claims it: its registered name and
   * the words saying it and why (`Trident (its target names start like …)`).
   */
  hintFor(s: SysfsSession): { driver: string; text: string } | undefined;
}

// PV names as external-provisioner makes them (`pvc-<uid>`), the usual part of a driver's target name.
const PVC_NAME = /pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function volumeClaim(v: CsiVolume, why: string, mounted: boolean): SessionClaim {
  const c: SessionClaim = {
    owner: 'csi',
    driver: v.driver,
    pods: csiVolumePods(v),
    paths: volumePaths(v),
    mounted,
    why,
  };
  if (v.pv) c.pv = v.pv;
  if (v.volumeHandle) c.volumeHandle = v.volumeHandle;
  return c;
}

/** The LUNs a driver file names: its LUN, else the session's devices it lists; undefined: not known. */
function fileLuns(f: CsiDriverFile, s: SysfsSession): number[] | undefined {
  if (f.lun !== undefined) return [f.lun];
  const luns = s.devices.filter((d) => d.name !== undefined && f.devices.includes(d.name)).map((d) => d.lun);
  return luns.length > 0 ? luns : undefined;
}

/** What the claims are looked up in, built once per read. */
interface ClaimLookups {
  /** kubelet's CSI volumes by staging and publish path. */
  byPath: ReadonlyMap<string, CsiVolume>;
  /** Driver files by `<portal>|<iqn>`, or `*|<iqn>` for a file that names no portal. */
  filesByRef: ReadonlyMap<string, CsiDriverFile[]>;
  /** kubelet's CSI volumes by volume handle and by PV name. */
  byName: ReadonlyMap<string, CsiVolume[]>;
  /** A portal as the keys of `filesByRef` spell it (normalised once per distinct text). */
  portalKey(portal: string): string;
}

/** `normalizePortal`, remembered: every session and file of a read asks it about the same few portals. */
function portalKeys(): (portal: string) => string {
  const known = new Map<string, string>();
  return (p) => {
    let x = known.get(p);
    if (x === undefined) {
      x = normalizePortal(p);
      known.set(p, x);
    }
    return x;
  };
}

function filesByTarget(files: readonly CsiDriverFile[], portalKey: (p: string) => string) {
  const out = new Map<string, CsiDriverFile[]>();
  for (const f of files) {
    if (!f.targetIqn) continue;
    const portals = f.portals.length > 0 ? f.portals : [''];
    for (const p of portals) {
      const k = `${p ? portalKey(p) : '*'}|${f.targetIqn}`;
      const l = out.get(k);
      if (l) l.push(f);
      else out.set(k, [f]);
    }
  }
  return out;
}

/** Names under three characters are left out: they would be found in almost any target name. */
function volumesByName(volumes: readonly CsiVolume[]): Map<string, CsiVolume[]> {
  const out = new Map<string, CsiVolume[]>();
  const add = (k: string | undefined, v: CsiVolume) => {
    if (!k || k.length < 3) return;
    const l = out.get(k);
    if (!l) out.set(k, [v]);
    else if (!l.includes(v)) l.push(v);
  };
  for (const v of volumes) {
    add(v.volumeHandle, v);
    add(v.pv, v);
  }
  return out;
}

/** The kubelet CSI volume a driver file belongs to: by its paths, else by its volume id. */
function fileVolume(f: CsiDriverFile, l: ClaimLookups): CsiVolume | undefined {
  for (const p of [f.stagingPath, ...f.publishedPaths]) {
    if (!p) continue;
    const v = l.byPath.get(p) ?? l.byPath.get(`${p}/globalmount`);
    if (v) return v;
  }
  return f.volumeId ? l.byName.get(f.volumeId)?.[0] : undefined;
}

/**
 * One session's claims as they are found: each CSI volume claimed once. The volumes are only
 * listed, never changed: their `sessions` are derived after the verdicts (csiVolumesWithSessions).
 */
class SessionClaims {
  readonly out: SessionClaim[] = [];
  readonly taken: CsiVolume[] = [];
  constructor(readonly s: SysfsSession) {}

  /** The session's on the volume; false when an earlier claim already took it. */
  take(v: CsiVolume): boolean {
    if (this.taken.includes(v)) return false;
    this.taken.push(v);
    return true;
  }

  add(v: CsiVolume, why: string, mounted: boolean, luns?: number[]): void {
    if (!this.take(v)) return;
    const c = volumeClaim(v, why, mounted);
    if (luns) c.luns = luns;
    this.out.push(c);
  }
}

/** 1. A device of the session mounted at a CSI staging or publish path. */
function mountClaims(c: SessionClaims, l: ClaimLookups): void {
  for (const d of c.s.devices) {
    for (const mp of d.mountpoints) {
      const v = l.byPath.get(mp);
      if (v) c.add(v, `${d.name ?? d.hctl} is mounted at ${mp}`, true, [d.lun]);
    }
  }
}

/** 2. The driver's own file names this target and portal (a claim per file, even of one volume). */
function fileClaims(c: SessionClaims, l: ClaimLookups): void {
  const s = c.s;
  const files = [
    ...(s.portal ? (l.filesByRef.get(`${l.portalKey(s.portal)}|${s.targetIqn}`) ?? []) : []),
    ...(l.filesByRef.get(`*|${s.targetIqn}`) ?? []),
  ];
  for (const f of files) {
    const v = fileVolume(f, l);
    const claim: SessionClaim = {
      owner: 'driver-file',
      driver: f.driver,
      pods: v ? csiVolumePods(v) : [],
      paths: [f.path, ...(v ? volumePaths(v) : [])],
      mounted: v ? isMounted(v) : false,
      why: `${f.kind} ${f.path} names ${s.targetIqn} @ ${s.portal}`,
    };
    const luns = fileLuns(f, s);
    if (luns) claim.luns = luns;
    const pv = v?.pv;
    if (pv) claim.pv = pv;
    const handle = v?.volumeHandle ?? f.volumeId;
    if (handle) claim.volumeHandle = handle;
    if (v) c.take(v);
    c.out.push(claim);
  }
}

/** 3. A kubelet CSI dir whose volume handle or PV name is in the target name. */
function nameClaims(c: SessionClaims, l: ClaimLookups, longhorn: string | undefined): void {
  const iqn = c.s.targetIqn;
  const names = new Set<string>([iqn.slice(iqn.indexOf(':') + 1), iqn.slice(iqn.lastIndexOf(':') + 1)]);
  if (l.byName.size > 0) for (const m of iqn.matchAll(PVC_NAME)) names.add(m[0]);
  if (longhorn) names.add(longhorn);
  for (const name of names) {
    for (const v of l.byName.get(name) ?? []) {
      c.add(
        v,
        `kubelet CSI dir of ${driverLabel(v.driver)} volume ${volName(v)} (${volumePaths(v)[0] ?? 'no dir'}): the target name ${iqn} carries its name`,
        isMounted(v),
      );
    }
  }
}

/** 4. Longhorn, when nothing else claimed the session: its target prefix and its device link. */
function longhornClaim(host: Host, s: SysfsSession, volume: string): SessionClaim | undefined {
  const link = `${LONGHORN_DEV_DIR}/${volume}`;
  if (host.lstat(link) === undefined) return undefined;
  // The link names the device (`/dev/longhorn/<volume>` → `/dev/sdX`), so its LUN.
  const to = host.readLink(link);
  const dev = to ? s.devices.find((d) => d.name === to.slice(to.lastIndexOf('/') + 1)) : undefined;
  return {
    ...(dev ? { luns: [dev.lun] } : {}),
    owner: 'driver-target',
    driver: LONGHORN,
    volumeHandle: volume,
    pods: [],
    paths: [link],
    mounted: false,
    why: `Longhorn target ${s.targetIqn} with its device link ${link}`,
  };
}

/**
 * The registered drivers that may serve an unclaimed session, for its hint: those known to serve
 * iSCSI (docs/csi-drivers.md) or named so. Drivers whose target names are recognisable
 * (driverFromTargetName) are left out: a target that does not look like theirs is not theirs.
 */
function unrecognisableIscsiDrivers(csi: CsiState): string[] {
  const iscsiDrivers = new Set([CSI_DRIVER_ISCSI, TRIDENT, LONGHORN]);
  const namedTargets = new Set([TRIDENT, LONGHORN]);
  return csi.drivers
    .filter(
      (d) =>
        d.registered &&
        !namedTargets.has(d.name) &&
        !d.name.includes('democratic-csi') &&
        (iscsiDrivers.has(d.name) || d.name.includes('iscsi')),
    )
    .map((d) => d.name);
}

/** The driver an unclaimed session most likely belongs to, by its target name or as the only candidate. */
function driverHint(
  s: SysfsSession,
  csi: CsiState,
  candidates: readonly string[],
): { driver: string; text: string } | undefined {
  let d = driverFromTargetName(s.targetIqn);
  // democratic-csi's name is chosen at install: the registered one, when there is exactly one.
  const dem = csi.drivers.filter((x) => x.registered && x.name.includes('democratic-csi'));
  if (d === DEMOCRATIC_CSI && dem.length === 1) d = dem[0]!.name;
  if (d)
    return {
      driver: d,
      text: `${driverLabel(d)} (its target names start like ${s.targetIqn.slice(0, s.targetIqn.indexOf(':') + 1)})`,
    };
  const only = candidates.length === 1 ? candidates[0]! : undefined;
  if (only)
    return {
      driver: only,
      text: `${driverLabel(only)} (the only iSCSI CSI driver registered on this node)`,
    };
  return undefined;
}

/**
 * The read's claim lookups, built once; each session then costs a few map lookups, asked in the
 * order of the module comment (a mount, a driver file, a name in the target, Longhorn's link).
 */
export function buildClaimIndex(
  host: Host,
  csi: CsiState,
  byPath: ReadonlyMap<string, CsiVolume>,
): ClaimIndex {
  const portalKey = portalKeys();
  const l: ClaimLookups = {
    byPath,
    filesByRef: filesByTarget(csi.driverFiles, portalKey),
    byName: volumesByName(csi.volumes),
    portalKey,
  };
  const candidates = unrecognisableIscsiDrivers(csi);
  return {
    claimsOf(s) {
      const lh = longhornVolume(s.targetIqn);
      if (byPath.size === 0 && l.filesByRef.size === 0 && l.byName.size === 0 && !lh)
        return { claims: [], volumes: none() };
      const c = new SessionClaims(s);
      mountClaims(c, l);
      fileClaims(c, l);
      nameClaims(c, l, lh);
      const longhorn = lh && c.out.length === 0 ? longhornClaim(host, s, lh) : undefined;
      if (longhorn) c.out.push(longhorn);
      return { claims: c.out, volumes: c.taken };
    },
    hintFor: (s) => driverHint(s, csi, candidates),
  };
}

/**
 * The verdict once CSI claims are known (docs/csi-drivers.md): a claimed session nothing mounts is `claimed`,
 * never `stale` or `orphaned`; one nothing claims but whose driver is recognisable says which.
 * `verdict` and `reasons` are what the in-tree rules decided; returns the final verdict.
 */
export function applyClaims(
  verdict: Verdict,
  reasons: string[],
  claims: readonly SessionClaim[],
  hint: string | undefined,
): Verdict {
  if (claims.length === 0) {
    if (verdict === 'stale' && hint) {
      reasons.push(
        `created by ${hint}; its claim is gone (no vol_data.json, no driver file, no mount): a driver leftover`,
      );
    }
    return verdict;
  }
  const lines = claims.map((c) => `${driverLabel(c.driver)}: ${c.why}`);
  if (verdict === 'in-use' || verdict === 'foreign') {
    reasons.push(...lines);
    return verdict;
  }
  const first = claims[0]!;
  const what = first.pv ?? first.volumeHandle;
  reasons.length = 0;
  reasons.push(
    `claimed by ${driverLabel(first.driver)}${what ? ` volume ${what}` : ''}, not mounted: NodeStage/NodeUnstage in flight or a driver leftover`,
    ...lines,
  );
  return 'claimed';
}
