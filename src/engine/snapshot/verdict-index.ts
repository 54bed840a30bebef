/**
 * The lookups every session's verdict asks, built once per read from the verdicts' input
 * (bench/README.md: the verdicts run for every session and volume, so no lookup scans a list).
 */
import { dirname } from '../host/path.js';
import { normalizePortal } from '../iscsi/portal.js';
import { makeVolCounter } from '../kubelet/paths.js';
import type { KubeletVolume, MultipathMap, PodVolume, PortalOutage } from '../model.js';
import type { SysfsSession } from './sessions.js';
import type { UsageResult } from './usage.js';
import type { VerdictInput } from './verdict-types.js';

/**
 * Lists keyed by portal+IQN (portals normalised: `[v6]:port`, default port), as two map levels so a
 * lookup per session builds no key string.
 */
class ByRef<T> {
  private readonly byPortal = new Map<string, Map<string, T[]>>();
  // The same few portal strings repeat across thousands of sessions and volumes: parse each once.
  private readonly normal = new Map<string, string>();

  private norm(portal: string): string {
    let n = this.normal.get(portal);
    if (n === undefined) {
      n = normalizePortal(portal);
      this.normal.set(portal, n);
    }
    return n;
  }

  /** The list for portal+iqn, created when `create` (else undefined when absent). */
  list(portal: string, iqn: string, create: true): T[];
  list(portal: string, iqn: string, create?: false): T[] | undefined;
  list(portal: string, iqn: string, create = false): T[] | undefined {
    const n = this.norm(portal);
    let m = this.byPortal.get(n);
    if (!m) {
      if (!create) return undefined;
      m = new Map();
      this.byPortal.set(n, m);
    }
    let l = m.get(iqn);
    if (!l && create) {
      l = [];
      m.set(iqn, l);
    }
    return l;
  }
}

/** Every portal a kubelet volume refers to: all of iscsi.json's Portals, else the dir name's. */
export function volumePortals(v: KubeletVolume): string[] {
  const ps = v.metadata?.Portals?.length ? v.metadata.Portals : [v.portal];
  return ps.filter((p) => p !== '');
}

type KubeletLoop = UsageResult['unresolvedKubeletLoops'][number];

export interface VerdictIndex {
  volsByRef: ByRef<KubeletVolume>;
  volByPath: ReadonlyMap<string, KubeletVolume>;
  podsByGlobal: ReadonlyMap<string, PodVolume[]>;
  loopsByRef: ByRef<KubeletLoop>;
  mapsBySlave: ReadonlyMap<string, MultipathMap>;
  /** kubelet's own count of global dirs for a portal+IQN, over both plugin trees. */
  volCount: (portal: string, iqn: string) => number;
  outageByPortal: ReadonlyMap<string, PortalOutage>;
}

export function indexVerdictInput(input: VerdictInput): VerdictIndex {
  const volsByRef = new ByRef<KubeletVolume>();
  const volByPath = new Map<string, KubeletVolume>();
  for (const v of input.volumes) {
    volByPath.set(v.path, v);
    if (!v.iqn) continue;
    for (const p of volumePortals(v)) {
      const l = volsByRef.list(p, v.iqn, true);
      if (!l.includes(v)) l.push(v);
    }
  }
  const podsByGlobal = new Map<string, PodVolume[]>();
  for (const pv of input.podVolumes) {
    if (!pv.globalPath) continue;
    const l = podsByGlobal.get(pv.globalPath);
    if (l) l.push(pv);
    else podsByGlobal.set(pv.globalPath, [pv]);
  }
  const loopsByRef = new ByRef<KubeletLoop>();
  for (const l of input.unresolvedKubeletLoops) loopsByRef.list(l.portal, l.iqn, true).push(l);
  const mapsBySlave = new Map<string, MultipathMap>();
  for (const m of input.multipath) for (const s of m.slaves) mapsBySlave.set(s, m);
  return {
    volsByRef,
    volByPath,
    podsByGlobal,
    loopsByRef,
    mapsBySlave,
    volCount: makeVolCounter(input.fsListing, input.blockListing),
    outageByPortal: new Map((input.outages ?? []).map((o) => [o.portal, o])),
  };
}

/** `path`'s parent, as posix.dirname gives it for the absolute, slash-free-ended paths mountinfo holds. */
function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  if (i <= 0 || i === path.length - 1 || path.charCodeAt(0) !== 47 || path.charCodeAt(i - 1) === 47)
    return dirname(path);
  return path.slice(0, i);
}

const EMPTY: KubeletVolume[] = [];

/**
 * The kubelet volumes that refer to a session: by portal+IQN, and — since a mounted FS volume hides
 * its iscsi.json (so its other portals are unknown) — by a mount or a block pod's device node on
 * one of its devices (a dm map's slaves). A new list only when a mount adds a volume.
 */
export function sessionVolumes(s: SysfsSession, idx: VerdictIndex): readonly KubeletVolume[] {
  const refVols = s.portal ? idx.volsByRef.list(s.portal, s.targetIqn) : undefined;
  let vols: KubeletVolume[] = refVols ?? EMPTY;
  let own = false;
  for (const d of s.devices) {
    const binds = d.blockBinds;
    const paths = binds ? [...d.mountpoints, ...binds.map((b) => b.path)] : d.mountpoints;
    for (const mp of paths) {
      const v = idx.volByPath.get(mp) ?? idx.volByPath.get(parentOf(mp));
      if (v && !vols.includes(v)) {
        if (!own) {
          vols = vols.slice();
          own = true;
        }
        vols.push(v);
      }
    }
  }
  return vols;
}
