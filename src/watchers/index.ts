/** The watcher layer's public API: the node store, the live watcher, and helpers around them. */
export type * from './types.js';
export { startWatcher } from './watcher.js';
