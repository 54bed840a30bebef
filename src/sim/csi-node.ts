/**
 * A CSI node in the simulator (docs/csi-drivers.md): what kubelet's CSI plugin and the iSCSI CSI drivers leave
 * on a node, built from the formats in docs/csi-drivers.md — kubelet's staging dir
 * (`plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount` + vol_data.json), the pod's
 * publish dir (`pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount` + vol_data.json), csi-driver-iscsi's
 * connector file (CHAP in plain text, as csi-lib-iscsi persists it), Trident's tracking file,
 * Longhorn's /dev/longhorn link, node-driver-registrar's socket and the node plugin's process.
 */
import { createHash } from 'node:crypto';
import { loginAndFormat } from './scenarios/lab.js';
import type { Simulator } from './simulator.js';
import type { TargetSpec } from './types.js';

const KROOT = '/var/lib/kubelet';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A file and its parent dirs (drivers and kubelet create them with MkdirAll). */
function put(sim: Simulator, path: string, content: string, mode?: number): void {
  sim.tree.dir(path.slice(0, path.lastIndexOf('/')));
  sim.tree.file(path, content, mode);
}

interface CsiVolumeSpec {
  driver: string;
  handle: string;
  pv: string;
  podUid: string;
  /** The driver stages (NodeStage mounts the device at globalmount). */
  stageMounted?: boolean;
  /** NodePublish mounted it at the pod's publish path. */
  publishMounted?: boolean;
  /** kubelet's dirs exist at all (false: the claim is gone). */
  dirs?: boolean;
}

interface CsiVolumeLaidOut {
  sd: string;
  staging: string;
  publish: string;
}

/** A driver's NodeStage/NodePublish login (sendtargets, login) with a filesystem on LUN 1. */
export const driverLogin = loginAndFormat;

/** kubelet's CSI dirs and vol_data.json files for one volume (MountDevice's and SetUp's), nothing mounted. */
export function kubeletCsiDirs(sim: Simulator, v: CsiVolumeSpec): { staging: string; publish: string } {
  const stagingDir = `${KROOT}/plugins/kubernetes.io/csi/${v.driver}/${sha256(v.handle)}`;
  const publishDir = `${KROOT}/pods/${v.podUid}/volumes/kubernetes.io~csi/${v.pv}`;
  const out = { staging: `${stagingDir}/globalmount`, publish: `${publishDir}/mount` };
  sim.tree.dir(out.staging);
  put(
    sim,
    `${stagingDir}/vol_data.json`,
    `${JSON.stringify({ driverName: v.driver, volumeHandle: v.handle })}\n`,
  );
  sim.tree.dir(out.publish);
  put(
    sim,
    `${publishDir}/vol_data.json`,
    `${JSON.stringify({
      attachmentID: `csi-${sha256(`${v.handle}${v.driver}${sim.hostname}`)}`,
      driverName: v.driver,
      nodeName: sim.hostname,
      specVolID: v.pv,
      volumeHandle: v.handle,
      volumeLifecycleMode: 'Persistent',
    })}\n`,
  );
  return out;
}

/** A driver's login and kubelet's CSI dirs for one volume, mounted as the spec says. */
export async function csiVolume(sim: Simulator, t: TargetSpec, v: CsiVolumeSpec): Promise<CsiVolumeLaidOut> {
  const sd = await driverLogin(sim, t);
  if (v.dirs === false) {
    const stagingDir = `${KROOT}/plugins/kubernetes.io/csi/${v.driver}/${sha256(v.handle)}`;
    return {
      sd,
      staging: `${stagingDir}/globalmount`,
      publish: `${KROOT}/pods/${v.podUid}/volumes/kubernetes.io~csi/${v.pv}/mount`,
    };
  }
  const out = { sd, ...kubeletCsiDirs(sim, v) };
  if (v.stageMounted) await sim.run(['mount', `/dev/${sd}`, out.staging]);
  if (v.publishMounted) {
    if (v.stageMounted) await sim.run(['mount', '--bind', out.staging, out.publish]);
    else await sim.run(['mount', `/dev/${sd}`, out.publish]);
  }
  return out;
}

/** The demo CHAP secret written into driver files: tests assert it never reaches any output. */
export const DEMO_DRIVER_SECRET = 'demo-driver-chap-secret';

/** csi-lib-iscsi's persisted Connector (`/var/run/iscsi.csi.k8s.io/iscsi-<volumeID>.json`). */
export function connectorFile(sim: Simulator, t: TargetSpec, handle: string, sd: string): string {
  const path = `/var/run/iscsi.csi.k8s.io/iscsi-${handle}.json`;
  const dev = { name: `/dev/${sd}`, hctl: '', children: null, type: 'disk', tran: 'iscsi' };
  put(
    sim,
    path,
    `${JSON.stringify({
      volume_name: handle,
      target_iqn: t.iqn,
      target_portal: t.portals,
      lun: 1,
      auth_type: 'chap',
      discovery_secrets: { userName: '', password: '' },
      session_secrets: { secretsType: 'chap', userName: 'node-user', password: DEMO_DRIVER_SECRET },
      interface: 'default',
      mount_target_device: dev,
      devices: [dev],
      retry_count: 10,
      check_interval: 1,
      do_discovery: true,
      do_chap_discovery: false,
    })}\n`,
    0o600,
  );
  return path;
}

/** Trident's tracking file (`/var/lib/trident/tracking/<volumeID>.json`, a VolumeTrackingInfo). */
export function tridentTracking(sim: Simulator, t: TargetSpec, handle: string, o: CsiVolumeLaidOut): string {
  const path = `/var/lib/trident/tracking/${handle}.json`;
  put(
    sim,
    path,
    `${JSON.stringify({
      iscsiTargetPortal: t.portals[0],
      iscsiPortals: t.portals.slice(1),
      iscsiTargetIqn: t.iqn,
      iscsiLunNumber: 1,
      iscsiInterface: 'default',
      iscsiIgroup: `trident-${sim.hostname}`,
      useCHAP: true,
      iscsiUsername: 'trident-node',
      iscsiInitiatorSecret: DEMO_DRIVER_SECRET,
      iscsiTargetUsername: 'trident-target',
      iscsiTargetSecret: DEMO_DRIVER_SECRET,
      devicePath: `/dev/${o.sd}`,
      fstype: 'ext4',
      SANType: 'iscsi',
      stagingTargetPath: o.staging,
      publishedTargetPaths: { [o.publish]: {} },
    })}\n`,
    0o600,
  );
  return path;
}

/** Longhorn's device link `/dev/longhorn/<volume>` to the session's disk. */
export function longhornLink(sim: Simulator, volume: string, sd: string): void {
  sim.tree.dir('/dev/longhorn');
  sim.tree.link(`/dev/longhorn/${volume}`, `/dev/${sd}`);
}

/** node-driver-registrar's registration socket, and optionally the node plugin's process. */
export function registerDriver(
  sim: Simulator,
  driver: string,
  process?: { comm: string; pid: number; argv: string[] },
): void {
  sim.tree.dir(`${KROOT}/plugins_registry`);
  put(sim, `${KROOT}/plugins_registry/${driver}-reg.sock`, '');
  // The driver's own dir for its socket, as its DaemonSet mounts it (docs/csi-drivers.md).
  sim.tree.dir(`${KROOT}/plugins/${driver}`);
  if (process) {
    sim.tree.dir(`/proc/${process.pid}`);
    put(sim, `/proc/${process.pid}/comm`, `${process.comm.slice(0, 15)}\n`);
    put(sim, `/proc/${process.pid}/cmdline`, `${process.argv.join('\0')}\0`);
  }
}
