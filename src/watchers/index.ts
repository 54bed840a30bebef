/** The watcher layer's public API: the node store, the live watcher, and helpers around them. */
export { type DiffResult, diffSnapshots } from './diff.js';
export { formatEventJson, formatEventLine } from './format-event.js';
export type { Pacer } from './pacer.js';
export { deepEqual, shareList, shareSnapshot } from './share.js';
export {
  type ApplyOptions,
  createNodeStore,
  DEFAULT_EVENT_CAP,
  initialNodeState,
  type NodeStore,
  type NodeStoreOptions,
} from './store.js';
export { DEFAULT_READER_BUDGET, type SysfsProbe, SysfsProber } from './sysfs-probe.js';
export type * from './types.js';
export { waitFor } from './wait-for.js';
export { DEFAULT_REFRESH_MS, startWatcher, type Watcher, type WatcherOptions } from './watcher.js';
