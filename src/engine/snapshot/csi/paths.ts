/**
 * Where kubelet's CSI plugin and the iSCSI CSI drivers keep their state on a node. Every fact here is
 * from the sources listed in docs/csi-drivers.md (kubernetes pkg/volume/csi/csi_attacher.go,
 * csi_mounter.go, csi_block.go; csi-driver-iscsi pkg/iscsi/iscsi_util.go; trident
 * frontend/csi/node_server.go; go-iscsi-helper iscsidev/iscsi.go). All paths are host paths.
 */

/** kubelet's CSI plugin dir component (`CSIPluginName`). */
export const CSI_PLUGIN = 'kubernetes.io/csi';
/** The escaped plugin name in pod dirs (`EscapeQualifiedName`). */
export const CSI_POD_PLUGIN = 'kubernetes.io~csi';
export const VOL_DATA = 'vol_data.json';
export const GLOBAL_MOUNT = 'globalmount';

export const CSI_DRIVER_ISCSI = 'iscsi.csi.k8s.io';
export const TRIDENT = 'csi.trident.netapp.io';
export const LONGHORN = 'driver.longhorn.io';
export const DEMOCRATIC_CSI = 'democratic-csi';

/** csi-driver-iscsi's connector dir (`/var/run/<driverName>`; /var/run is /run on current systems). */
export const CONNECTOR_DIRS = ['/var/run/iscsi.csi.k8s.io', '/run/iscsi.csi.k8s.io'] as const;
/** Trident's per-volume tracking files (`tridentDeviceInfoPath`). */
export const TRIDENT_TRACKING_DIR = '/var/lib/trident/tracking';
/** Trident's older per-volume file inside the staging dir (`volumePublishInfoFilename`). */
export const TRIDENT_PUBLISH_INFO = 'volumePublishInfo.json';
/** Longhorn v1 target names (`GetTargetName`) and device links (`DevPath`). */
export const LONGHORN_IQN_PREFIX = 'iqn.2019-10.io.longhorn:';
export const LONGHORN_DEV_DIR = '/dev/longhorn';

export function trimRoot(root: string): string {
  return root.length > 1 ? root.replace(/\/+$/, '') : root;
}

/** `<root>/plugins/kubernetes.io/csi`. */
export function csiPluginDir(kubeletRoot: string): string {
  return `${trimRoot(kubeletRoot)}/plugins/${CSI_PLUGIN}`;
}

/** `<root>/plugins_registry`: node-driver-registrar's `<driver>-reg.sock` sockets. */
export function registryDir(kubeletRoot: string): string {
  return `${trimRoot(kubeletRoot)}/plugins_registry`;
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
  if (iqn.startsWith(LONGHORN_IQN_PREFIX)) return LONGHORN;
  if (iqn.startsWith('iqn.1992-08.com.netapp:')) return TRIDENT;
  if (iqn.startsWith('iqn.2005-10.org.freenas.ctl:')) return DEMOCRATIC_CSI;
  return undefined;
}

/** A short display name for a driver (reasons say "csi-driver-iscsi", not "iscsi.csi.k8s.io"). */
export function driverLabel(driver: string): string {
  if (driver === CSI_DRIVER_ISCSI) return 'csi-driver-iscsi';
  if (driver === TRIDENT) return 'Trident';
  if (driver === LONGHORN) return 'Longhorn';
  if (driver === DEMOCRATIC_CSI) return 'democratic-csi';
  if (driver.includes('democratic-csi')) return `democratic-csi (${driver})`;
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
    `${trimRoot(kubeletRoot)}/pods`,
  ];
}
