/**
 * A demo aid for `serve --demo`: brings every portal the simulated node has lost back (iscsid logs
 * its sessions in again), so a test — or a person watching an alert — sees an outage resolve.
 * Only the simulator has portals to bring back; a real node is never touched.
 */
import type { Host } from '../engine/host/host.js';
import type { Snapshot } from '../engine/model.js';
import type { SimHost } from '../sim/index.js';

/** Portals brought back (none unless the host is the simulator and a portal is down). */
export function bringDemoPortalsBack(host: Host, snap: Snapshot | undefined): string[] {
  if (host.kind !== 'sim' || !snap) return [];
  const sim = (host as SimHost).sim;
  const portals = snap.outages.map((o) => o.portal);
  for (const p of portals) sim.portalUp(p);
  return portals;
}
