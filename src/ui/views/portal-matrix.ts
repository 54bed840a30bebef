/**
 * The portal matrix of a target (portal × session state × path state) as detail lines: every portal
 * its volumes expect and every portal with a session, from the snapshot's expected state
 * (src/engine/snapshot/expected.ts), then each volume short of a path or a LUN with the command that
 * repairs it. Shown in the session detail; the Targets view's rows carry the same cells.
 */
import { hintFor, nodeProblems, portalMatrixCells, type SurfaceAction } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';

export function portalMatrixLines(
  snap: Snapshot,
  iqn: string,
  current?: string,
  /** The console's actions: a repair hint then names the action's key, not the CLI command. */
  actions?: readonly SurfaceAction[],
): Line[] {
  const t = snap.expected?.targets.find((x) => x.iqn === iqn);
  if (!t) return [];
  const missing = t.missingPortals.length;
  const lines: Line[] = [
    { text: '' },
    {
      text: `Portals (${t.expectedPortals.length} expected, ${t.loggedInPortals.length} logged in${missing ? `, ${missing} missing` : ''})`,
      bold: true,
    },
  ];
  for (const r of t.portals) {
    const c = portalMatrixCells(r);
    const here = r.portal === current ? '▸' : ' ';
    const down = r.sessions.length > 0 && !r.sessions.some((x) => x.state === 'LOGGED_IN');
    lines.push({
      text: ` ${here}${c.portal.padEnd(22)} ${c.expected.padEnd(12)} ${c.session.padEnd(16)} ${c.paths}`,
      ...(r.expected && r.sessions.length === 0
        ? { tone: 'bad' as const }
        : down
          ? { tone: 'warn' as const }
          : {}),
    });
  }
  const problems = nodeProblems(snap).expected;
  for (const path of t.volumes) {
    const p = problems.get(path);
    if (!p) continue;
    lines.push({ text: `  ⚠ ${p.reason}`, tone: p.severity === 'failed' ? 'bad' : 'warn' });
    if (p.hint)
      lines.push({ text: `      → ${actions ? hintFor(p.hint, 'console', actions) : p.hint}`, tone: 'dim' });
  }
  return lines;
}
