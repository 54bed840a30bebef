/**
 * What is already wrong when a watch begins, as events: the console's Events view and `watch`
 * start with them, so an incident that was there before either started is on the timeline too (the
 * snapshot diff only reports changes). One event per down portal, per session with a problem and
 * per kubelet or CSI volume with one, worded from the engine's problems (problems.ts), so the reasons
 * read as in the tables and the summary.
 */
import type { Snapshot } from '../engine/model.js';
import { nodeProblems, type Problem } from '../engine/snapshot/problems.js';
import { portalDownEvent, problemAtStart } from './events.js';
import type { EventDraft } from './types.js';

/** The problems of the first full read as events (none for a node with nothing wrong). */
export function problemsAtStart(snap: Snapshot): EventDraft[] {
  if (snap.partial) return [];
  const np = nodeProblems(snap);
  const out: EventDraft[] = snap.outages.map(portalDownEvent);
  const bad = (p: Problem | undefined): p is Problem => p !== undefined && p.severity !== 'ok';
  for (const s of snap.sessions) {
    const p = np.sessions.get(s.key);
    if (bad(p))
      out.push(problemAtStart('session', s.key, `session ${s.sid}`, p, `${s.targetIqn} @ ${s.portal}`));
  }
  for (const [path, p] of np.volumes)
    if (bad(p)) out.push(problemAtStart('kubelet', path, 'volume', p, path));
  for (const [path, p] of np.csiVolumes)
    if (bad(p)) out.push(problemAtStart('kubelet', path, 'CSI volume', p, path));
  return out;
}
