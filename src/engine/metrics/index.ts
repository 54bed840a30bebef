/** Prometheus metrics of a node: the families (node-families.ts) and the text format (exposition.ts). */
export { FAMILIES, type FamilyName } from './definitions.js';
export { EXPOSITION_CONTENT_TYPE, renderEach, renderExposition } from './exposition.js';
export {
  DEFAULT_MAX_SESSIONS,
  exporterMetrics,
  isExporterFamily,
  nodeMetrics,
  snapshotMetrics,
  type WatcherCounters,
} from './node-families.js';

import type { Snapshot } from '../model.js';
import { renderExposition } from './exposition.js';
import { type MetricsOptions, nodeMetrics } from './node-families.js';

/** One snapshot as the text format. */
export function metricsText(snap: Snapshot, options: MetricsOptions): string {
  return renderExposition(nodeMetrics(snap, options).families);
}
