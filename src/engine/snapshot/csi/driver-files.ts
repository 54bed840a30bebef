/**
 * Parsers for the drivers' own per-volume files (docs/csi-drivers.md): csi-lib-iscsi's persisted
 * `Connector` (csi-driver-iscsi) in all three field layouts, and Trident's tracking file /
 * volumePublishInfo.json. Only identity fields are copied out; `session_secrets`,
 * `discovery_secrets` and Trident's `IscsiChapInfo` are looked at only to say "CHAP is configured",
 * and their values never leave this file.
 */
import type { CsiDriverFile } from '../../model.js';
import { type JsonObjectResult, obj, str, strFold, strList, uint } from './bounded-json.js';
import { CSI_DRIVER_ISCSI, TRIDENT } from './paths.js';

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

function hasSecret(o: Record<string, unknown> | undefined): boolean {
  if (!o) return false;
  return ['userName', 'password', 'userNameIn', 'passwordIn'].some(
    (k) => typeof o[k] === 'string' && o[k] !== '',
  );
}

/**
 * csi-lib-iscsi `Connector` JSON. Target and portals: `target_iqn` + `target_portal` (2021-10 on),
 * `target_iqn` + `target_portals` (2019), or `targets[]` of `{iqn, portal, port}` (2021-05 … 2021-10),
 * which 2019-12 … 2021-05 wrote untagged as `{Iqn, Portal}` with the port at the top level (`port`);
 * the 2021-05 form also carries an empty `target_iqn` and `target_portals: null` beside `targets`.
 */
export function parseConnector(
  parsed: JsonObjectResult,
  path: string,
  volumeId?: string,
): CsiDriverFile | string {
  if (!parsed.ok) return parsed.problem;
  const c = parsed.value;
  let targetIqn = str(c, 'target_iqn');
  let portals = strList(c, 'target_portal');
  if (portals.length === 0) portals = strList(c, 'target_portals');
  const targets = Array.isArray(c.targets) ? c.targets.slice(0, 64) : [];
  const connectorPort = str(c, 'port');
  for (const t of targets) {
    if (t === null || typeof t !== 'object' || Array.isArray(t)) continue;
    const o = t as Record<string, unknown>;
    const iqn = strFold(o, 'iqn');
    const portal = strFold(o, 'portal');
    const port = strFold(o, 'port') ?? connectorPort;
    targetIqn ??= iqn;
    if (portal && iqn === targetIqn)
      portals.push(port && !portal.includes(':') ? `${portal}:${port}` : portal);
  }
  if (!targetIqn) return `${path} names no target (target_iqn / targets[])`;
  const devices: string[] = [];
  const mtd = obj(c, 'mount_target_device');
  const mtdName = mtd ? str(mtd, 'name') : undefined;
  if (mtdName) devices.push(baseName(mtdName));
  const devs = Array.isArray(c.devices) ? c.devices.slice(0, 256) : [];
  for (const d of devs) {
    if (d === null || typeof d !== 'object' || Array.isArray(d)) continue;
    const n = str(d as Record<string, unknown>, 'name');
    if (n && !devices.includes(baseName(n))) devices.push(baseName(n));
  }
  const out: CsiDriverFile = {
    driver: CSI_DRIVER_ISCSI,
    kind: 'csi-driver-iscsi connector',
    path,
    targetIqn,
    portals,
    devices,
    publishedPaths: [],
    chap:
      hasSecret(obj(c, 'session_secrets')) ||
      hasSecret(obj(c, 'discovery_secrets')) ||
      str(c, 'auth_type') === 'chap',
  };
  const vol = volumeId ?? str(c, 'volume_name');
  if (vol) out.volumeId = vol;
  const lun = uint(c, 'lun');
  if (lun !== undefined) out.lun = lun;
  const iface = str(c, 'interface');
  if (iface) out.iface = iface;
  return out;
}

/**
 * Trident `VolumeTrackingInfo` (tracking dir) or `VolumePublishInfo` (older volumePublishInfo.json):
 * `iscsiTargetIqn`, `iscsiTargetPortal`, `iscsiPortals`, `iscsiLunNumber`, `iscsiInterface`,
 * `devicePath`/`rawDevicePath`, `stagingTargetPath`, `publishedTargetPaths` (object keys).
 * Files of NFS/NVMe volumes (no IQN) are not iSCSI claims: undefined.
 */
export function parseTridentFile(
  parsed: JsonObjectResult,
  path: string,
  kind: 'trident tracking file' | 'trident volumePublishInfo.json',
  volumeId?: string,
): CsiDriverFile | string | undefined {
  if (!parsed.ok) return parsed.problem;
  const t = parsed.value;
  const targetIqn = str(t, 'iscsiTargetIqn');
  if (!targetIqn) return undefined;
  const portals: string[] = [];
  const primary = str(t, 'iscsiTargetPortal');
  if (primary) portals.push(primary);
  for (const p of strList(t, 'iscsiPortals')) if (!portals.includes(p)) portals.push(p);
  const devices: string[] = [];
  for (const k of ['devicePath', 'rawDevicePath']) {
    const d = str(t, k);
    if (d && !devices.includes(baseName(d))) devices.push(baseName(d));
  }
  const published = obj(t, 'publishedTargetPaths');
  const out: CsiDriverFile = {
    driver: TRIDENT,
    kind,
    path,
    targetIqn,
    portals,
    devices,
    publishedPaths: published
      ? Object.keys(published)
          .slice(0, 256)
          .filter((k) => str({ k }, 'k') !== undefined)
      : [],
    chap: t.useCHAP === true,
  };
  if (volumeId) out.volumeId = volumeId;
  const lun = uint(t, 'iscsiLunNumber');
  if (lun !== undefined) out.lun = lun;
  const iface = str(t, 'iscsiInterface');
  if (iface) out.iface = iface;
  const staging = str(t, 'stagingTargetPath');
  if (staging) out.stagingPath = staging;
  return out;
}
