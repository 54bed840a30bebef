/**
 * Reads what CSI drivers and kubelet's CSI plugin leave on a node (docs/csi-drivers.md): kubelet's
 * staging and publish dirs with their vol_data.json, the drivers' own files, the registration
 * sockets, and whether known node plugins run. Bounded: at most MAX_ENTRIES entries per directory
 * are looked at, and every file through readJsonObject's size cap.
 */

import type { Host } from '../../host/host.js';
import { normalizeKubeletRoot } from '../../kubelet/paths.js';
import type { CsiDriverFile, CsiDriverState, CsiState, CsiVolume, Mount } from '../../model.js';
import { type ProcessTable, readProcessTable } from '../processes.js';
import { readJsonObject, str } from './bounded-json.js';
import { parseConnector, parseTridentFile } from './driver-files.js';
import { findNodePlugins } from './node-plugins.js';
import {
  CONNECTOR_DIRS,
  CSI_POD_PLUGIN,
  csiPluginDir,
  GLOBAL_MOUNT,
  registryDir,
  TRIDENT_PUBLISH_INFO,
  TRIDENT_TRACKING_DIR,
  VOL_DATA,
} from './paths.js';

/** Entries looked at per directory (a node has at most a few thousand volumes). */
const MAX_ENTRIES = 20_000;

function list(host: Host, dir: string): string[] {
  const e = host.readDir(dir);
  return e.length > MAX_ENTRIES ? e.slice(0, MAX_ENTRIES) : e;
}

interface VolData {
  driver?: string;
  handle?: string;
  pv?: string;
}

function readVolData(host: Host, path: string, problems: string[]): VolData | undefined {
  const r = readJsonObject(host, path);
  if (!r) return undefined;
  if (!r.ok) {
    problems.push(r.problem);
    return undefined;
  }
  const out: VolData = {};
  const d = str(r.value, 'driverName');
  const h = str(r.value, 'volumeHandle');
  const pv = str(r.value, 'specVolID');
  if (d) out.driver = d;
  if (h) out.handle = h;
  if (pv) out.pv = pv;
  return out;
}

/** Volumes merged by driver+handle (or PV name when no handle is known). */
class VolumeSet {
  readonly all: CsiVolume[] = [];
  private readonly byKey = new Map<string, CsiVolume>();

  get(
    driver: string | undefined,
    handle: string | undefined,
    pv: string | undefined,
    mode: CsiVolume['mode'],
  ): CsiVolume {
    const keys: string[] = [];
    if (handle) keys.push(`h\0${driver ?? ''}\0${handle}`);
    if (pv) keys.push(`p\0${mode}\0${pv}`);
    let v: CsiVolume | undefined;
    for (const k of keys) {
      v = this.byKey.get(k);
      if (v) break;
    }
    if (!v) {
      v = { driver: driver ?? '', mode, stagingMounted: false, publish: [], sessions: [], problems: [] };
      this.all.push(v);
    }
    if (driver && !v.driver) v.driver = driver;
    if (handle && !v.volumeHandle) v.volumeHandle = handle;
    if (pv && !v.pv) v.pv = pv;
    for (const k of keys) this.byKey.set(k, v);
    return v;
  }
}

interface CsiRead {
  state: CsiState;
  /** Host path of every staging/publish path → its volume (for matching mounts). */
  byPath: Map<string, CsiVolume>;
}

/** Reads the node's CSI state; `undefined` state parts are empty lists. */
export function readCsi(
  host: Host,
  kubeletRoot: string,
  mounts: readonly Mount[],
  problems: string[],
  processes?: ProcessTable,
): CsiRead {
  const mounted = new Set<string>();
  for (const m of mounts) mounted.add(m.mountPoint);
  const vols = new VolumeSet();
  const byPath = new Map<string, CsiVolume>();
  const files: CsiDriverFile[] = [];
  const plugin = csiPluginDir(kubeletRoot);

  const staging = (v: CsiVolume, path: string) => {
    v.stagingPath = path;
    v.stagingMounted = mounted.has(path);
    byPath.set(path, v);
  };

  for (const top of list(host, plugin)) {
    if (top === 'volumeDevices') {
      readBlockTree(host, `${plugin}/volumeDevices`, vols, byPath, mounted, problems);
      continue;
    }
    if (top === 'pv') {
      // Older kubelets: plugins/kubernetes.io/csi/pv/<pv>/globalmount.
      for (const pv of list(host, `${plugin}/pv`)) {
        const dir = `${plugin}/pv/${pv}`;
        const entries = list(host, dir);
        const vd = entries.includes(VOL_DATA) ? readVolData(host, `${dir}/${VOL_DATA}`, problems) : undefined;
        staging(vols.get(vd?.driver, vd?.handle, pv, 'filesystem'), `${dir}/${GLOBAL_MOUNT}`);
        if (entries.includes(TRIDENT_PUBLISH_INFO)) readTridentPublishInfo(host, dir, files, problems);
      }
      continue;
    }
    // Current kubelets: plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount.
    for (const sha of list(host, `${plugin}/${top}`)) {
      const dir = `${plugin}/${top}/${sha}`;
      // One listing instead of reads that mostly fail: ENOENT costs an exception per file.
      const entries = list(host, dir);
      const vd = entries.includes(VOL_DATA) ? readVolData(host, `${dir}/${VOL_DATA}`, problems) : undefined;
      if (!vd && !entries.includes(GLOBAL_MOUNT)) continue;
      const v = vols.get(vd?.driver ?? top, vd?.handle, undefined, 'filesystem');
      if (!vd) v.problems.push(`no ${VOL_DATA} in ${dir}: kubelet cannot unstage this volume by itself`);
      staging(v, `${dir}/${GLOBAL_MOUNT}`);
      if (entries.includes(TRIDENT_PUBLISH_INFO)) readTridentPublishInfo(host, dir, files, problems);
    }
  }

  const podsDir = `${normalizeKubeletRoot(kubeletRoot)}/pods`;
  for (const uid of list(host, podsDir)) {
    // Pods without CSI volumes (most of them) cost two listings that succeed, no failing ones.
    const podDirs = list(host, `${podsDir}/${uid}`);
    const fsDir = `${podsDir}/${uid}/volumes/${CSI_POD_PLUGIN}`;
    const fsVols =
      podDirs.includes('volumes') && list(host, `${podsDir}/${uid}/volumes`).includes(CSI_POD_PLUGIN)
        ? list(host, fsDir)
        : [];
    for (const pv of fsVols) {
      const dir = `${fsDir}/${pv}`;
      const vd = readVolData(host, `${dir}/${VOL_DATA}`, problems);
      const v = vols.get(vd?.driver, vd?.handle, vd?.pv ?? pv, 'filesystem');
      const path = `${dir}/mount`;
      const isMounted = mounted.has(path);
      v.publish.push({ podUid: uid, path, mounted: isMounted });
      byPath.set(path, v);
      // csi-driver-iscsi before 2021-11 kept its connector inside the publish dir (readable only unmounted).
      if (!isMounted) {
        for (const e of list(host, path)) {
          if (!e.endsWith('.json')) continue;
          addFile(
            files,
            problems,
            parseConnector(
              readJsonObject(host, `${path}/${e}`) ?? { ok: false, problem: `${path}/${e} vanished` },
              `${path}/${e}`,
            ),
          );
        }
      }
    }
    const blockDir = `${podsDir}/${uid}/volumeDevices/${CSI_POD_PLUGIN}`;
    for (const pv of podDirs.includes('volumeDevices') ? list(host, blockDir) : []) {
      const path = `${blockDir}/${pv}`;
      const v = vols.get(undefined, undefined, pv, 'block');
      v.publish.push({ podUid: uid, path, mounted: host.readLink(path) !== undefined });
      byPath.set(path, v);
    }
  }

  for (const dir of CONNECTOR_DIRS) {
    for (const e of list(host, dir)) {
      const m = /^iscsi-(.+)\.json$/.exec(e);
      if (!m) continue;
      const path = `${dir}/${e}`;
      const r = readJsonObject(host, path);
      if (r) addFile(files, problems, parseConnector(r, path, m[1]));
    }
  }
  for (const e of list(host, TRIDENT_TRACKING_DIR)) {
    if (!e.endsWith('.json')) continue;
    const path = `${TRIDENT_TRACKING_DIR}/${e}`;
    const r = readJsonObject(host, path);
    if (r) addFile(files, problems, parseTridentFile(r, path, 'trident tracking file', e.slice(0, -5)));
  }

  // Link driver files to kubelet's volumes through the paths they record.
  for (const f of files) {
    for (const p of [f.stagingPath, ...f.publishedPaths]) {
      if (!p) continue;
      const v = byPath.get(p) ?? byPath.get(`${p}/${GLOBAL_MOUNT}`);
      if (v && !v.driver) v.driver = f.driver;
    }
  }

  const drivers = readDrivers(host, kubeletRoot, vols.all, files, processes);
  return { state: { volumes: vols.all, driverFiles: files, drivers }, byPath };
}

function addFile(files: CsiDriverFile[], problems: string[], r: CsiDriverFile | string | undefined): void {
  if (r === undefined) return;
  if (typeof r === 'string') problems.push(r);
  else files.push(r);
}

function readTridentPublishInfo(host: Host, dir: string, files: CsiDriverFile[], problems: string[]): void {
  const path = `${dir}/${TRIDENT_PUBLISH_INFO}`;
  const r = readJsonObject(host, path);
  if (!r) return;
  const f = parseTridentFile(r, path, 'trident volumePublishInfo.json');
  if (f && typeof f !== 'string') f.stagingPath ??= `${dir}/${GLOBAL_MOUNT}`;
  addFile(files, problems, f);
}

/** Block volumes: `volumeDevices/{staging,publish}/<pv>` and `volumeDevices/<pv>/data/vol_data.json`. */
function readBlockTree(
  host: Host,
  dir: string,
  vols: VolumeSet,
  byPath: Map<string, CsiVolume>,
  mounted: ReadonlySet<string>,
  problems: string[],
): void {
  for (const e of list(host, dir)) {
    if (e === 'staging') {
      for (const pv of list(host, `${dir}/staging`)) {
        const v = vols.get(undefined, undefined, pv, 'block');
        const path = `${dir}/staging/${pv}`;
        v.stagingPath = path;
        v.stagingMounted = mounted.has(path);
        byPath.set(path, v);
      }
    } else if (e === 'publish') {
      for (const pv of list(host, `${dir}/publish`)) {
        const path = `${dir}/publish/${pv}`;
        const v = vols.get(undefined, undefined, pv, 'block');
        byPath.set(path, v);
        if (host.lstat(path) === 'dir') for (const uid of list(host, path)) byPath.set(`${path}/${uid}`, v);
      }
    } else {
      const vd = readVolData(host, `${dir}/${e}/data/${VOL_DATA}`, problems);
      vols.get(vd?.driver, vd?.handle, vd?.pv ?? e, 'block');
    }
  }
}

/** Registered drivers (plugins_registry sockets), drivers seen in dirs or files, and their processes. */
function readDrivers(
  host: Host,
  kubeletRoot: string,
  vols: readonly CsiVolume[],
  files: readonly CsiDriverFile[],
  processes: ProcessTable | undefined,
): CsiDriverState[] {
  const out = new Map<string, CsiDriverState>();
  const get = (name: string) => {
    let d = out.get(name);
    if (!d) {
      d = { name, registered: false, processes: [] };
      out.set(name, d);
    }
    return d;
  };
  for (const e of list(host, registryDir(kubeletRoot))) {
    const m = /^(.+)-reg\.sock$/.exec(e);
    if (m && str({ n: m[1] }, 'n')) get(m[1]!).registered = true;
  }
  for (const v of vols) if (v.driver) get(v.driver);
  for (const f of files) get(f.driver);
  if (out.size > 0) {
    // Only when a driver is on the node: a node without CSI costs no /proc scan.
    const plugins = findNodePlugins(processes ?? readProcessTable(host));
    for (const d of out.values()) {
      const procs = plugins.running.get(d.name);
      if (procs) {
        d.processes.push(...procs);
        d.running = true;
      } else if (plugins.knows(d.name)) d.running = false;
    }
  }
  return [...out.values()];
}
