/**
 * The read engine: one synchronous pass over a node's iSCSI state (sysfs first, no iscsiadm),
 * producing the Snapshot of src/engine/model.ts. Every reader tolerates objects vanishing mid-read.
 */
import type { Host } from '../host/host.js';
import { SCHEMA_VERSION, type Snapshot } from '../model.js';
import { readBlockClass } from './block-class.js';
import { readByPathLinks, readMapperNames } from './dev-links.js';
import { findIscsiDbRoot, readIfaces, readInitiatorName, readNodeRecords } from './iscsi-db.js';
import { readKubeletVolumes } from './kubelet-volumes.js';
import { readMountinfo } from './mountinfo.js';
import { readPodVolumes } from './pod-volumes.js';
import { buildPortalHostMap } from './portal-host-map.js';
import { readSessions } from './sessions.js';
import { readSwaps } from './swaps.js';
import { linkUsage } from './usage.js';
import { computeVerdicts } from './verdicts.js';

export { cleanAttr, readAttr, readIntAttr, toInt, VANISHED } from './attr.js';
export { type BlockClassRead, type DmDevice, readBlockClass } from './block-class.js';
export { BY_PATH_DIR, MAPPER_DIR, readByPathLinks, readMapperNames } from './dev-links.js';
export {
  findIscsiDbRoot,
  INITIATOR_NAME_PATH,
  ISCSI_DB_ROOTS,
  parseInitiatorName,
  parsePortalEntry,
  parseRecord,
  readIfaces,
  readInitiatorName,
  readNodeRecords,
} from './iscsi-db.js';
export { type IscsiJsonResult, parseIscsiJson } from './iscsi-json.js';
export { type KubeletVolumesRead, readKubeletVolumes } from './kubelet-volumes.js';
export { decodeOctal, MOUNTINFO_PATH, parseMountinfo, readMountinfo } from './mountinfo.js';
export { readPodVolumes } from './pod-volumes.js';
export { buildPortalHostMap, type PortalHostMap, readPortalHostMapForTarget } from './portal-host-map.js';
export { type DeviceExtras, type PartitionInfo, readPartitionIndex, readScsiDevice } from './scsi-devices.js';
export {
  ISCSI_SESSION_CLASS,
  readSession,
  readSessions,
  type SessionsRead,
  type SysfsSession,
} from './sessions.js';
export { parseSwaps, readSwaps, SWAPS_PATH } from './swaps.js';
export { type DeviceUse, linkUsage, type UsageInput, type UsageResult } from './usage.js';
export { computeVerdicts, type VerdictInput, volumePortals } from './verdicts.js';

export interface SnapshotOptions {
  /** Host path of the kubelet root dir (`--kubelet-root`, default /var/lib/kubelet). */
  kubeletRoot: string;
}

/**
 * Takes one snapshot of the node behind `host`. Synchronous by design (see host.ts): ~50,000 tiny
 * sysfs reads at 1,000 sessions. Never throws for node state: what cannot be read lands in `problems`.
 */
export function takeSnapshot(host: Host, options: SnapshotOptions): Snapshot {
  const started = performance.now();
  const takenAt = new Date(host.now()).toISOString();
  const kubeletRoot =
    options.kubeletRoot.length > 1 ? options.kubeletRoot.replace(/\/+$/, '') : options.kubeletRoot;
  const problems: string[] = [];

  // Modules not loaded: no iscsi_host class at all. That is an empty node, not an error (kubernetes #74640).
  const iscsiLoaded = host.lstat('/sys/class/iscsi_host') !== undefined;
  const { sessions: raw, extras } = readSessions(host, problems);
  const { dm, loops } = readBlockClass(host);
  const mounts = readMountinfo(host, problems);
  const swaps = readSwaps(host);
  const byPath = readByPathLinks(host);
  const mapperNames = readMapperNames(host);
  const usage = linkUsage({
    host,
    kubeletRoot,
    sessions: raw,
    extras,
    dm,
    mounts,
    swaps,
    loops,
    byPath,
    mapperNames,
  });
  const kube = readKubeletVolumes(host, kubeletRoot, mounts);
  const podVolumes = readPodVolumes(host, kubeletRoot, mounts, kube.volumes);
  const sessions = computeVerdicts({
    sessions: raw,
    uses: usage.uses,
    unresolvedKubeletLoops: usage.unresolvedKubeletLoops,
    multipath: usage.multipath,
    volumes: kube.volumes,
    podVolumes,
    fsListing: kube.fsListing,
    blockListing: kube.blockListing,
  });
  const dbRoot = findIscsiDbRoot(host);
  const nodeRecords = readNodeRecords(host, dbRoot, problems);
  const ifaces = readIfaces(host, dbRoot);
  const initiatorName = readInitiatorName(host);

  const snapshot: Snapshot = {
    schemaVersion: SCHEMA_VERSION,
    takenAt,
    readMs: 0,
    node: { hostname: host.hostname(), root: host.root, kind: host.kind, kubeletRoot, iscsiLoaded },
    sessions,
    portalHostMap: buildPortalHostMap(sessions),
    multipath: usage.multipath,
    mounts,
    swaps,
    loops,
    kubelet: { root: kubeletRoot, volumes: kube.volumes, podVolumes },
    nodeRecords,
    ifaces,
    problems,
  };
  if (initiatorName !== undefined) snapshot.node.initiatorName = initiatorName;
  snapshot.readMs = Math.round((performance.now() - started) * 100) / 100;
  return snapshot;
}
