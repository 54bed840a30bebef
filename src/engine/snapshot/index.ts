/**
 * The read engine: one synchronous pass over a node's iSCSI state (sysfs first, no iscsiadm),
 * producing the Snapshot of src/engine/model.ts. Every reader tolerates objects vanishing mid-read.
 */
import type { Host } from '../host/host.js';
import type { Snapshot } from '../model.js';
import { type SnapshotOptions, takeFullSnapshot } from './assemble.js';

export { type ChangedSessions, type RefreshResult, refreshSnapshot } from './incremental.js';
export { ISCSI_DB_ROOTS, parsePortalEntry, parseRecord, readInitiatorName } from './iscsi-db.js';
export { parseIscsiJson } from './iscsi-json.js';
export { parseMountinfo } from './mountinfo.js';
export { ISCSI_SESSION_CLASS, isSessionName } from './sessions.js';
export { parseSwaps } from './swaps.js';

/**
 * Takes one snapshot of the node behind `host`. Synchronous by design (see host.ts): ~50,000 tiny
 * sysfs reads at 1,000 sessions. Never throws for node state: what cannot be read lands in `problems`.
 * When only some sessions changed since a snapshot, `refreshSnapshot` (incremental.ts) is cheaper.
 */
export function takeSnapshot(host: Host, options: SnapshotOptions): Snapshot {
  return takeFullSnapshot(host, options);
}
