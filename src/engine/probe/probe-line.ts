import type { PortalProbe } from '../model.js';

/** `connection refused (probed 12:01:03)`: what a probe found and when (UTC time of the probe's clock). */
export function probeLine(r: PortalProbe): string {
  return `${r.detail} (probed ${r.at.slice(11, 19)})`;
}
