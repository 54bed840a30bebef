/**
 * The read engine: one synchronous pass over a node's iSCSI state (sysfs first, no iscsiadm),
 * producing the Snapshot of src/engine/model.ts. Every reader tolerates objects vanishing mid-read.
 */
import type { Host } from '../host/host.js';
import type { Snapshot } from '../model.js';
import { type SnapshotOptions, takeFullSnapshot } from './assemble.js';

export type { SnapshotOptions } from './assemble.js';

export { cleanAttr, readAttr, readIntAttr, toInt, VANISHED } from './attr.js';
export { type BlockClassRead, type DmDevice, readBlockClass } from './block-class.js';
export { BY_PATH_DIR, MAPPER_DIR, readByPathLinks, readMapperNames } from './dev-links.js';
export { type ChangedSessions, type RefreshResult, refreshSnapshot } from './incremental.js';
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
  assembleSessions,
  ISCSI_SESSION_CLASS,
  isSessionName,
  readSession,
  readSessionEntry,
  readSessions,
  type SessionEntryRead,
  type SessionsRead,
  type SysfsSession,
} from './sessions.js';
export { parseSwaps, readSwaps, SWAPS_PATH } from './swaps.js';
export { type DeviceUse, linkUsage, type UsageInput, type UsageResult } from './usage.js';
export { computeVerdicts, type VerdictInput, volumePortals } from './verdicts.js';

/**
 * Takes one snapshot of the node behind `host`. Synchronous by design (see host.ts): ~50,000 tiny
 * sysfs reads at 1,000 sessions. Never throws for node state: what cannot be read lands in `problems`.
 * When only some sessions changed since a snapshot, `refreshSnapshot` (incremental.ts) is cheaper.
 */
export function takeSnapshot(host: Host, options: SnapshotOptions): Snapshot {
  return takeFullSnapshot(host, options);
}
