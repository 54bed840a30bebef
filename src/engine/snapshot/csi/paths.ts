/**
 * Where kubelet's CSI plugin and the iSCSI CSI drivers keep their state on a node. Every fact here is
 * from the sources listed in docs/csi-drivers.md (kubernetes pkg/volume/csi/csi_attacher.go,
 * csi_mounter.go, csi_block.go; csi-driver-iscsi pkg/iscsi/iscsi_util.go; trident
 * frontend/csi/node_server.go; go-iscsi-helper iscsidev/iscsi.go). All paths are host paths.
 */

import { sha256Hex } from '../../builtins-on-use.js';
import { normalizeKubeletRoot } from '../../kubelet/paths.js';

/** kubelet's CSI plugin dir component (`CSIPluginName`). */
const CSI_PLUGIN = 'kubernetes.io/csi';
/** The escaped plugin name in pod dirs (`EscapeQualifiedName`). */
export const CSI_POD_PLUGIN = 'kubernetes.io~csi';
export const VOL_DATA = 'vol_data.json';
export const GLOBAL_MOUNT = 'globalmount';

/** csi-driver-iscsi's connector dir (`/var/run/<driverName>`; /var/run is /run on current systems). */
export const CONNECTOR_DIRS = ['/var/run/iscsi.csi.k8s.io', '/run/iscsi.csi.k8s.io'] as const;
/** Trident's per-volume tracking files (`tridentDeviceInfoPath`). */
export const TRIDENT_TRACKING_DIR = '/var/lib/trident/tracking';
/** Trident's older per-volume file inside the staging dir (`volumePublishInfoFilename`). */
export const TRIDENT_PUBLISH_INFO = 'volumePublishInfo.json';
/** Longhorn v1 target names (`GetTargetName`) and device links (`DevPath`). */
const LONGHORN_IQN_PREFIX = 'iqn.2019-10.io.longhorn:';
export const LONGHORN_DEV_DIR = '/dev/longhorn';

/**
 * The iSCSI CSI drivers the console knows by name, one row each: the name kubelet records, the short
 * label reasons use ("csi-driver-iscsi", not "iscsi.csi.k8s.io"), and the target-name prefix that
 * suggests the driver when nothing else says so (Longhorn's own; NetApp ONTAP for Trident; FreeNAS /
 * TrueNAS for democratic-csi: docs/csi-drivers.md).
 */
const DRIVERS = {
  csiDriverIscsi: { name: 'iscsi.csi.k8s.io', label: 'csi-driver-iscsi' },
  trident: { name: 'csi.trident.netapp.io', label: 'Trident', targetPrefix: 'iqn.1992-08.com.netapp:' },
  longhorn: { name: 'driver.longhorn.io', label: 'Longhorn', targetPrefix: LONGHORN_IQN_PREFIX },
  democraticCsi: {
    name: 'democratic-csi',
    label: 'democratic-csi',
    targetPrefix: 'iqn.2005-10.org.freenas.ctl:',
  },
} as const;
const KNOWN_DRIVERS: readonly { name: string; label: string; targetPrefix?: string }[] =
  Object.values(DRIVERS);

export const CSI_DRIVER_ISCSI: string = DRIVERS.csiDriverIscsi.name;
export const TRIDENT: string = DRIVERS.trident.name;
export const LONGHORN: string = DRIVERS.longhorn.name;
export const DEMOCRATIC_CSI: string = DRIVERS.democraticCsi.name;

/** `<root>/plugins/kubernetes.io/csi`. */
export function csiPluginDir(kubeletRoot: string): string {
  return `${normalizeKubeletRoot(kubeletRoot)}/plugins/${CSI_PLUGIN}`;
}

/** `<root>/plugins_registry`: node-driver-registrar's `<driver>-reg.sock` sockets. */
export function registryDir(kubeletRoot: string): string {
  return `${normalizeKubeletRoot(kubeletRoot)}/plugins_registry`;
}

/** The Longhorn volume a target name belongs to (`:` back to `_`, as Volume2ISCSIName reverses), or undefined. */
export function longhornVolume(iqn: string): string | undefined {
  if (!iqn.startsWith(LONGHORN_IQN_PREFIX)) return undefined;
  const v = iqn.slice(LONGHORN_IQN_PREFIX.length).replace(/:/g, '_');
  return v.length > 0 ? v : undefined;
}

/**
 * Which driver a target name suggests when nothing else says so (docs/csi-drivers.md): Longhorn's
 * prefix, NetApp ONTAP (Trident), FreeNAS/TrueNAS (democratic-csi). A hint for reasons, never a claim.
 */
export function driverFromTargetName(iqn: string): string | undefined {
  return KNOWN_DRIVERS.find((d) => d.targetPrefix !== undefined && iqn.startsWith(d.targetPrefix))?.name;
}

/** A short display name for a driver (reasons say "csi-driver-iscsi", not "iscsi.csi.k8s.io"). */
export function driverLabel(driver: string): string {
  const known = KNOWN_DRIVERS.find((d) => d.name === driver)?.label;
  if (known) return known;
  // democratic-csi is deployed under names of the admin's choosing (org.democratic-csi.iscsi, …)
  if (driver.includes(DEMOCRATIC_CSI)) return `democratic-csi (${driver})`;
  return driver;
}

/**
 * The dirs a driver's own metadata file may be removed from (cleanup of a driver leftover): the
 * drivers' state dirs above, and kubelet's CSI tree and pod dirs, where older csi-driver-iscsi and
 * Trident releases kept theirs (docs/csi-drivers.md). Anything else is never a driver file.
 */
export function driverFileDirs(kubeletRoot: string): string[] {
  return [
    ...CONNECTOR_DIRS,
    TRIDENT_TRACKING_DIR,
    csiPluginDir(kubeletRoot),
    `${normalizeKubeletRoot(kubeletRoot)}/pods`,
  ];
}

/** A name kubelet used as one path component (a driver, a sha256, a PV, a pod UID). */
function isComponent(s: string | undefined): s is string {
  return s !== undefined && s !== '' && s !== '.' && s !== '..' && !s.includes('/') && !s.includes('\0');
}

type CsiDirLayout = { dir: string } | { problem: string };

/**
 * A filesystem volume's staging dir checked against kubelet's layout (docs/csi-drivers.md, kubernetes
 * pkg/volume/csi/csi_attacher.go makeDeviceMountPath): `<plugin>/<driver>/<sha256(handle)>/globalmount`
 * with the driver and handle vol_data.json names, or the older `<plugin>/pv/<pv>/globalmount`.
 * Returns the dir that holds vol_data.json and globalmount.
 */
export function csiStagingLayout(
  kubeletRoot: string,
  stagingPath: string,
  driver: string,
  handle: string | undefined,
  pv: string | undefined,
): CsiDirLayout {
  const plugin = csiPluginDir(kubeletRoot);
  if (!stagingPath.startsWith(`${plugin}/`))
    return { problem: `${stagingPath} is not under kubelet's CSI plugin dir ${plugin}` };
  const parts = stagingPath.slice(plugin.length + 1).split('/');
  const [top, name, leaf] = parts;
  if (parts.length !== 3 || leaf !== GLOBAL_MOUNT || !isComponent(top) || !isComponent(name))
    return { problem: `${stagingPath} is not <plugin>/<driver>/<sha256>/globalmount` };
  const dir = `${plugin}/${top}/${name}`;
  if (top === 'pv') {
    if (pv !== undefined && name !== pv) return { problem: `${dir} is not PV ${pv}'s staging dir` };
    return { dir };
  }
  if (top !== driver) return { problem: `${dir} is under ${top}, but vol_data.json names driver ${driver}` };
  if (!/^[0-9a-f]{64}$/.test(name))
    return { problem: `${name} in ${dir} is not a sha256 of a volume handle` };
  if (handle !== undefined && sha256Hex(handle) !== name)
    return { problem: `${dir} is not sha256(${handle}), the volume handle vol_data.json names` };
  return { dir };
}

/**
 * A filesystem volume's publish path checked against kubelet's layout (csi_mounter.go GetPath):
 * `<root>/pods/<podUID>/volumes/kubernetes.io~csi/<specVolID>/mount`. Returns the volume's dir.
 */
export function csiPublishLayout(
  kubeletRoot: string,
  path: string,
  podUid: string,
  pv: string | undefined,
): CsiDirLayout {
  const pods = `${normalizeKubeletRoot(kubeletRoot)}/pods/`;
  const parts = path.startsWith(pods) ? path.slice(pods.length).split('/') : [];
  const [uid, volumes, plugin, name, leaf] = parts;
  if (
    parts.length !== 5 ||
    uid !== podUid ||
    volumes !== 'volumes' ||
    plugin !== CSI_POD_PLUGIN ||
    leaf !== 'mount' ||
    !isComponent(uid) ||
    !isComponent(name)
  )
    return { problem: `${path} is not <root>/pods/<uid>/volumes/${CSI_POD_PLUGIN}/<pv>/mount` };
  if (pv !== undefined && name !== pv) return { problem: `${path} is not PV ${pv}'s publish path` };
  return { dir: path.slice(0, -'/mount'.length) };
}

/**
 * For the path guard: a kubelet CSI volume dir, or its `vol_data.json`, `globalmount` or `mount`
 * (the only paths cleanup removes there, one by one, never recursively).
 */
export function isKubeletCsiVolumePath(kubeletRoot: string, path: string): boolean {
  const parts = path.split('/');
  if (parts.slice(1).some((p) => !isComponent(p))) return false;
  const leaf = parts.at(-1);
  const known = leaf === VOL_DATA || leaf === GLOBAL_MOUNT || leaf === 'mount';
  const plugin = csiPluginDir(kubeletRoot);
  if (path.startsWith(`${plugin}/`)) {
    const depth = path.slice(plugin.length + 1).split('/').length;
    return top(path, plugin) !== 'volumeDevices' && (depth === 2 || (depth === 3 && known));
  }
  const pods = `${normalizeKubeletRoot(kubeletRoot)}/pods/`;
  if (!path.startsWith(pods)) return false;
  const rel = path.slice(pods.length).split('/');
  if (rel[1] !== 'volumes' || rel[2] !== CSI_POD_PLUGIN) return false;
  return rel.length === 4 || (rel.length === 5 && (leaf === VOL_DATA || leaf === 'mount'));
}

function top(path: string, plugin: string): string | undefined {
  return path.slice(plugin.length + 1).split('/')[0];
}
