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
import { withItem } from '../lists.js';
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

export interface ClaimIndex {
  claimsOf(s: SysfsSession): SessionClaim[];
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

export function buildClaimIndex(
  host: Host,
  csi: CsiState,
  byPath: ReadonlyMap<string, CsiVolume>,
): ClaimIndex {
  const filesByRef = new Map<string, CsiDriverFile[]>();
  const norm = new Map<string, string>();
  const n = (p: string) => {
    let x = norm.get(p);
    if (x === undefined) {
      x = normalizePortal(p);
      norm.set(p, x);
    }
    return x;
  };
  for (const f of csi.driverFiles) {
    if (!f.targetIqn) continue;
    const portals = f.portals.length > 0 ? f.portals : [''];
    for (const p of portals) {
      const k = `${p ? n(p) : '*'}|${f.targetIqn}`;
      const l = filesByRef.get(k);
      if (l) l.push(f);
      else filesByRef.set(k, [f]);
    }
  }
  const byName = new Map<string, CsiVolume[]>();
  const addName = (k: string | undefined, v: CsiVolume) => {
    if (!k || k.length < 3) return;
    const l = byName.get(k);
    if (!l) byName.set(k, [v]);
    else if (!l.includes(v)) l.push(v);
  };
  for (const v of csi.volumes) {
    addName(v.volumeHandle, v);
    addName(v.pv, v);
  }
  // Drivers known to serve iSCSI (docs/csi-drivers.md), or named so: the hint for an unclaimed session.
  const iscsiDrivers = new Set([CSI_DRIVER_ISCSI, TRIDENT, LONGHORN]);
  // Drivers whose target names are recognisable (driverFromTargetName) are left out: a target that
  // does not look like theirs is not theirs.
  const namedTargets = new Set([TRIDENT, LONGHORN]);
  const registeredIscsi = csi.drivers.filter(
    (d) =>
      d.registered &&
      !namedTargets.has(d.name) &&
      !d.name.includes('democratic-csi') &&
      (iscsiDrivers.has(d.name) || d.name.includes('iscsi')),
  );

  const fileVolume = (f: CsiDriverFile): CsiVolume | undefined => {
    for (const p of [f.stagingPath, ...f.publishedPaths]) {
      if (!p) continue;
      const v = byPath.get(p) ?? byPath.get(`${p}/globalmount`);
      if (v) return v;
    }
    return f.volumeId ? byName.get(f.volumeId)?.[0] : undefined;
  };

  return {
    claimsOf(s) {
      const out: SessionClaim[] = [];
      const lh = longhornVolume(s.targetIqn);
      if (byPath.size === 0 && filesByRef.size === 0 && byName.size === 0 && !lh) return out;
      const seen = new Set<CsiVolume>();
      const add = (v: CsiVolume, why: string, mounted: boolean, luns?: number[]) => {
        if (seen.has(v)) return;
        seen.add(v);
        v.sessions = withItem(v.sessions, s.sid);
        const c = volumeClaim(v, why, mounted);
        if (luns) c.luns = luns;
        out.push(c);
      };
      // 1. A device of the session mounted at a CSI staging or publish path.
      for (const d of s.devices) {
        for (const mp of d.mountpoints) {
          const v = byPath.get(mp);
          if (v) add(v, `${d.name ?? d.hctl} is mounted at ${mp}`, true, [d.lun]);
        }
      }
      // 2. The driver's own file names this target and portal.
      const files = [
        ...(s.portal ? (filesByRef.get(`${n(s.portal)}|${s.targetIqn}`) ?? []) : []),
        ...(filesByRef.get(`*|${s.targetIqn}`) ?? []),
      ];
      for (const f of files) {
        const v = fileVolume(f);
        const c: SessionClaim = {
          owner: 'driver-file',
          driver: f.driver,
          pods: v ? csiVolumePods(v) : [],
          paths: [f.path, ...(v ? volumePaths(v) : [])],
          mounted: v ? isMounted(v) : false,
          why: `${f.kind} ${f.path} names ${s.targetIqn} @ ${s.portal}`,
        };
        const luns = fileLuns(f, s);
        if (luns) c.luns = luns;
        const pv = v?.pv;
        if (pv) c.pv = pv;
        const handle = v?.volumeHandle ?? f.volumeId;
        if (handle) c.volumeHandle = handle;
        if (v) {
          seen.add(v);
          v.sessions = withItem(v.sessions, s.sid);
        }
        out.push(c);
      }
      // 3. A kubelet CSI dir whose volume handle / PV name is in the target name.
      const suffix = s.targetIqn.slice(s.targetIqn.indexOf(':') + 1);
      const names = new Set<string>([suffix, s.targetIqn.slice(s.targetIqn.lastIndexOf(':') + 1)]);
      if (byName.size > 0) for (const m of s.targetIqn.matchAll(PVC_NAME)) names.add(m[0]);
      if (lh) names.add(lh);
      for (const name of names) {
        for (const v of byName.get(name) ?? []) {
          add(
            v,
            `kubelet CSI dir of ${driverLabel(v.driver)} volume ${volName(v)} (${volumePaths(v)[0] ?? 'no dir'}): the target name ${s.targetIqn} carries its name`,
            isMounted(v),
          );
        }
      }
      // 4. Longhorn: its target prefix and its device link.
      if (lh && out.length === 0 && host.lstat(`${LONGHORN_DEV_DIR}/${lh}`) !== undefined) {
        // The link names the device (`/dev/longhorn/<volume>` → `/dev/sdX`), so its LUN.
        const to = host.readLink(`${LONGHORN_DEV_DIR}/${lh}`);
        const dev = to ? s.devices.find((d) => d.name === to.slice(to.lastIndexOf('/') + 1)) : undefined;
        out.push({
          ...(dev ? { luns: [dev.lun] } : {}),
          owner: 'driver-target',
          driver: LONGHORN,
          volumeHandle: lh,
          pods: [],
          paths: [`${LONGHORN_DEV_DIR}/${lh}`],
          mounted: false,
          why: `Longhorn target ${s.targetIqn} with its device link ${LONGHORN_DEV_DIR}/${lh}`,
        });
      }
      return out;
    },
    hintFor(s) {
      let d = driverFromTargetName(s.targetIqn);
      // democratic-csi's name is chosen at install: the registered one, when there is exactly one.
      const dem = csi.drivers.filter((x) => x.registered && x.name.includes('democratic-csi'));
      if (d === DEMOCRATIC_CSI && dem.length === 1) d = dem[0]!.name;
      if (d)
        return {
          driver: d,
          text: `${driverLabel(d)} (its target names start like ${s.targetIqn.slice(0, s.targetIqn.indexOf(':') + 1)})`,
        };
      const only = registeredIscsi.length === 1 ? registeredIscsi[0]!.name : undefined;
      if (only)
        return {
          driver: only,
          text: `${driverLabel(only)} (the only iSCSI CSI driver registered on this node)`,
        };
      return undefined;
    },
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
