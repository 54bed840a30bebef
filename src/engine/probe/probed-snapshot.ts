/**
 * A snapshot that knows which down portals answer: probe the portals of the down sessions (the
 * only ones whose answer changes a verdict: outage or stuck), then read again with the results.
 * Without a prober (read-only, no `--probe`) the snapshot is returned as it was: nothing is sent.
 */
import type { ActionContext } from '../actions/types.js';
import type { Snapshot } from '../model.js';
import { isSessionDown } from '../snapshot/outages.js';

/** Distinct portals of the down sessions in `snap`. */
export function downPortals(snap: Pick<Snapshot, 'sessions'>): string[] {
  return [...new Set(snap.sessions.filter((s) => s.portal !== '' && isSessionDown(s)).map((s) => s.portal))];
}

export async function probedSnapshot(
  ctx: Pick<ActionContext, 'prober' | 'takeSnapshot'>,
  snap: Snapshot,
): Promise<Snapshot> {
  if (!ctx.prober) return snap;
  const portals = downPortals(snap);
  if (portals.length === 0) return snap;
  await ctx.prober.probe(portals);
  return ctx.takeSnapshot();
}
