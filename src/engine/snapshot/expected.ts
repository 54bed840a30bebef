/**
 * Expected state: what the node's own metadata says should be logged in and scanned, beside what
 * is (docs/status-schema.md#expected-state). kubelet's AttachDisk carries on with the portals whose
 * login worked and never retries the others (pkg/volume/iscsi/iscsi_util.go; kubernetes#74305,
 * docs/kubelet-iscsi.md#attachdisk), so a multipath volume can run on one path for weeks; this is
 * where the console tells. Sources: kubelet's iscsi.json (`Portals`, `Lun`, `Iface`) or the global
 * dir's name, csi-driver-iscsi's connector file (its portals list) and Trident's tracking file
 * (its portals) (docs/csi-drivers.md), and the multipath map a volume's LUN resolved to (it may
 * hold more paths than the metadata names, e.g. when iscsi.json is hidden under the mount).
 *
 * Pure: built from a snapshot's sessions, maps, kubelet volumes and driver files.
 */
import { normalizePortal, parsePortal } from '../iscsi/portal.js';
import { ISCSI_PLUGIN } from '../kubelet/paths.js';
import type {
  CsiDriverFile,
  ExpectedLun,
  ExpectedPath,
  ExpectedPortalRow,
  ExpectedState,
  ExpectedTarget,
  ExpectedVolume,
  KubeletVolume,
  MultipathMap,
  Session,
} from '../model.js';

interface ExpectedInput {
  sessions: readonly Session[];
  multipath: readonly MultipathMap[];
  volumes: readonly KubeletVolume[];
  driverFiles: readonly CsiDriverFile[];
  /** Mount points (PID 1's mountinfo): a driver file's staging or publish path mounted means in use. */
  mountPoints: ReadonlySet<string>;
}

/** The driver files that name what a volume should have (Trident's volumePublishInfo.json is its older copy of the tracking file). */
const DRIVER_SOURCES = new Set<ExpectedVolume['source']>([
  'csi-driver-iscsi connector',
  'trident tracking file',
]);

interface Seed {
  source: ExpectedVolume['source'];
  driver: string;
  path: string;
  name: string;
  iqn: string;
  iface: string;
  portals: string[];
  lun: number;
  /** Sessions that carry the volume's device (its mount, its map): their portals are expected too. */
  carriers: readonly number[];
  inUse: boolean;
  partial?: string;
}

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Canonical IP portals; a hostname portal cannot be matched with sysfs's address and is left out. */
function ipPortals(list: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of list) {
    const parsed = parsePortal(p);
    if (!parsed || parsed.family === 'hostname') continue;
    const n = normalizePortal(p);
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

function inTreeSeed(v: KubeletVolume): Seed | undefined {
  const lun = Number(v.lun);
  if (!v.iqn || v.lun === '' || !Number.isSafeInteger(lun) || lun < 0) return undefined;
  const md = v.metadata;
  const portals = ipPortals(md?.Portals?.length ? md.Portals : [v.portal]);
  const seed: Seed = {
    source: 'in-tree',
    driver: ISCSI_PLUGIN,
    path: v.path,
    name: md?.VolName || baseName(v.path),
    iqn: v.iqn,
    iface: v.iface || md?.Iface || 'default',
    portals,
    lun,
    carriers: v.sessions,
    inUse: v.mounted || v.pods.length > 0 || v.podDevices.length > 0,
  };
  if (v.metadataSource === 'hidden')
    seed.partial =
      'iscsi.json is hidden under the mount: expected portals from the dir name and the map only';
  return seed;
}

function driverSeed(f: CsiDriverFile, mountPoints: ReadonlySet<string>): Seed | undefined {
  if (!DRIVER_SOURCES.has(f.kind as ExpectedVolume['source'])) return undefined;
  if (!f.targetIqn || f.lun === undefined) return undefined;
  return {
    source: f.kind as ExpectedVolume['source'],
    driver: f.driver,
    path: f.path,
    name: f.volumeId || baseName(f.path),
    iqn: f.targetIqn,
    iface: f.iface || 'default',
    portals: ipPortals(f.portals),
    lun: f.lun,
    carriers: [],
    inUse: [f.stagingPath, ...f.publishedPaths].some((p) => p !== undefined && mountPoints.has(p)),
  };
}

interface Index {
  /** Sessions by `iqn|portal`, ascending sid. */
  byTargetPortal: Map<string, Session[]>;
  bySid: Map<number, Session>;
  /**
   * Each target's sessions (in `bySid` order) and the portals they are at: a node with thousands of
   * targets asks per target, never across all sessions (that was quadratic at 1,000 sessions).
   */
  byTarget: Map<string, { sessions: Session[]; portals: Set<string> }>;
  mapBySlave: Map<string, MultipathMap>;
}

function index(sessions: readonly Session[], maps: readonly MultipathMap[]): Index {
  const byTargetPortal = new Map<string, Session[]>();
  const bySid = new Map<number, Session>();
  for (const s of sessions) {
    if (s.pending) continue;
    bySid.set(s.sid, s);
    const k = `${s.targetIqn}|${s.portal}`;
    const list = byTargetPortal.get(k);
    if (list) list.push(s);
    else byTargetPortal.set(k, [s]);
  }
  const byTarget: Index['byTarget'] = new Map();
  for (const s of bySid.values()) {
    const t = byTarget.get(s.targetIqn);
    if (t) {
      t.sessions.push(s);
      t.portals.add(s.portal);
    } else byTarget.set(s.targetIqn, { sessions: [s], portals: new Set([s.portal]) });
  }
  const mapBySlave = new Map<string, MultipathMap>();
  for (const m of maps) for (const sd of m.slaves) mapBySlave.set(sd, m);
  return { byTargetPortal, bySid, byTarget, mapBySlave };
}

/** The session kubelet would find at a portal: a logged-in one first, then the lowest sid. */
function sessionAt(ix: Index, iqn: string, portal: string): Session | undefined {
  const list = ix.byTargetPortal.get(`${iqn}|${portal}`);
  if (!list) return undefined;
  return list.find((s) => s.state === 'LOGGED_IN') ?? list[0];
}

function pathOf(ix: Index, iqn: string, portal: string, lun: number): ExpectedPath {
  const s = sessionAt(ix, iqn, portal);
  const out: ExpectedPath = { portal };
  if (!s) return out;
  out.sid = s.sid;
  out.sessionState = s.state;
  const d = s.devices.find((x) => x.lun === lun && x.name);
  if (!d?.name) return out;
  out.device = d.name;
  if (d.state) out.deviceState = d.state;
  const m = ix.mapBySlave.get(d.name);
  const tp = m?.topology?.pathGroups.flatMap((g) => g.paths).find((p) => p.dev === d.name);
  if (tp?.dmState) out.dmState = tp.dmState;
  if (tp?.checkerState) out.checkerState = tp.checkerState;
  return out;
}

/** Portals of the sessions that carry the LUN's map (its other paths), beyond what the metadata names. */
function mapPortals(
  ix: Index,
  iqn: string,
  lun: number,
  portals: readonly string[],
  carriers: readonly number[],
) {
  const extra: string[] = [];
  const maps = new Set<MultipathMap>();
  for (const p of portals) {
    const d = sessionAt(ix, iqn, p)?.devices.find((x) => x.lun === lun && x.name);
    const m = d?.name ? ix.mapBySlave.get(d.name) : undefined;
    if (m) maps.add(m);
  }
  for (const sid of carriers) {
    const s = ix.bySid.get(sid);
    if (s?.targetIqn !== iqn) continue;
    for (const d of s.devices) {
      const m = d.lun === lun && d.name ? ix.mapBySlave.get(d.name) : undefined;
      if (m) maps.add(m);
    }
  }
  let slaves = 0;
  for (const m of maps) {
    slaves = Math.max(slaves, m.slaves.length);
    for (const s of ix.byTarget.get(iqn)?.sessions ?? []) {
      if (portals.includes(s.portal) || extra.includes(s.portal)) continue;
      if (s.devices.some((d) => d.name !== undefined && m.slaves.includes(d.name))) extra.push(s.portal);
    }
  }
  return { extra, slaves };
}

function expectedVolume(ix: Index, seed: Seed): ExpectedVolume {
  const fromMap = mapPortals(ix, seed.iqn, seed.lun, seed.portals, seed.carriers);
  const expectedPortals = [...seed.portals, ...fromMap.extra];
  const paths = expectedPortals.map((p) => pathOf(ix, seed.iqn, p, seed.lun));
  const lun = resolveLun(ix, seed.lun, paths);
  const v: ExpectedVolume = {
    source: seed.source,
    driver: seed.driver,
    path: seed.path,
    name: seed.name,
    iqn: seed.iqn,
    iface: seed.iface,
    expectedPortals,
    missingPortals: paths.filter((p) => p.sid === undefined).map((p) => p.portal),
    expectedPaths: Math.max(expectedPortals.length, fromMap.slaves),
    paths: paths.filter((p) => p.sessionState === 'LOGGED_IN' && p.device !== undefined).length,
    expectedLuns: [lun],
    inUse: seed.inUse,
  };
  if (seed.partial) v.partial = seed.partial;
  return v;
}

function resolveLun(ix: Index, lun: number, paths: ExpectedPath[]): ExpectedLun {
  const devs = paths.map((p) => p.device).filter((d): d is string => d !== undefined);
  const map = devs.map((d) => ix.mapBySlave.get(d)).find((m) => m !== undefined);
  const out: ExpectedLun = { lun, device: map ? map.name : (devs[0] ?? null), paths };
  if (map) out.map = map.alias;
  return out;
}

function targetOf(ix: Index, iqn: string, vols: ExpectedVolume[]): ExpectedTarget {
  const expectedPortals = [...new Set(vols.flatMap((v) => v.expectedPortals))].sort();
  const withSession: ReadonlySet<string> = ix.byTarget.get(iqn)?.portals ?? new Set();
  const luns = [...new Set(vols.flatMap((v) => v.expectedLuns.map((l) => l.lun)))].sort((a, b) => a - b);
  const rows: ExpectedPortalRow[] = [...new Set([...expectedPortals, ...withSession])]
    .sort()
    .map((portal) => ({
      portal,
      expected: expectedPortals.includes(portal),
      sessions: (ix.byTargetPortal.get(`${iqn}|${portal}`) ?? []).map((s) => ({
        sid: s.sid,
        state: s.state,
        iface: s.iface,
      })),
      paths: luns.map((lun) => {
        const { portal: _p, sid: _s, sessionState: _st, ...path } = pathOf(ix, iqn, portal, lun);
        return { lun, ...path };
      }),
    }));
  return {
    iqn,
    expectedPortals,
    loggedInPortals: expectedPortals.filter((p) =>
      (ix.byTargetPortal.get(`${iqn}|${p}`) ?? []).some((s) => s.state === 'LOGGED_IN'),
    ),
    missingPortals: expectedPortals.filter((p) => !withSession.has(p)),
    volumes: vols.map((v) => v.path),
    portals: rows,
  };
}

/** The node's expected state, or undefined when no volume names a target, portals and LUN. */
export function expectedState(input: ExpectedInput): ExpectedState | undefined {
  const seeds: Seed[] = [];
  for (const v of input.volumes) {
    const s = inTreeSeed(v);
    if (s) seeds.push(s);
  }
  for (const f of input.driverFiles) {
    const s = driverSeed(f, input.mountPoints);
    if (s) seeds.push(s);
  }
  if (seeds.length === 0) return undefined;
  const ix = index(input.sessions, input.multipath);
  const volumes = seeds.map((s) => expectedVolume(ix, s));
  const byIqn = new Map<string, ExpectedVolume[]>();
  for (const v of volumes) {
    const list = byIqn.get(v.iqn);
    if (list) list.push(v);
    else byIqn.set(v.iqn, [v]);
  }
  const targets = [...byIqn.keys()].sort().map((iqn) => targetOf(ix, iqn, byIqn.get(iqn)!));
  return { targets, volumes };
}

/** An expected volume has some path: the problems of a missing portal or LUN are about a volume in service. */
export function volumeHasSession(v: ExpectedVolume): boolean {
  return v.expectedLuns[0]?.paths.some((p) => p.sid !== undefined) ?? false;
}
