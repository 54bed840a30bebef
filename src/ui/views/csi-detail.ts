/**
 * The session detail's CSI part (docs/csi-drivers.md): the chain continues from the session to the CSI
 * volumes and driver files that claim it, and on to their staging/publish dirs and pods.
 */

import { driverLabel, podLabel } from '../../app/domain.js';
import type { Session, Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';

export function csiDetailLines(snap: Snapshot, s: Session): Line[] {
  const claims = s.claims ?? [];
  const vols = (snap.csi?.volumes ?? []).filter((v) => v.sessions.includes(s.sid));
  if (claims.length === 0 && vols.length === 0) return [];
  const lines: Line[] = [{ text: '' }, { text: `CSI claims (${claims.length})`, bold: true }];
  for (const c of claims) {
    const what = [c.pv && `PV ${c.pv}`, c.volumeHandle && `handle ${c.volumeHandle}`]
      .filter(Boolean)
      .join(', ');
    lines.push({
      text: `  ${driverLabel(c.driver)} (${c.driver}) ${c.owner}${what ? `: ${what}` : ''}${c.mounted ? '' : ' (not mounted)'}`,
      tone: c.mounted ? 'ok' : 'accent',
    });
    lines.push({ text: `      ${c.why}`, tone: 'dim' });
  }
  for (const v of vols) {
    lines.push({
      text: `  CSI volume ${v.pv ?? v.volumeHandle ?? '?'} (${driverLabel(v.driver)}, ${v.mode})`,
    });
    if (v.stagingPath)
      lines.push({
        text: `      staging ${v.stagingPath}${v.stagingMounted ? ' (mounted)' : ''}`,
        tone: v.stagingMounted ? 'ok' : 'dim',
      });
    for (const p of v.publish)
      lines.push({
        text: `      → pod ${podLabel(snap.kubelet.pods, p.podUid)} publish ${p.path}${p.mounted ? '' : ' (not mounted)'}`,
        tone: p.mounted ? 'ok' : 'dim',
      });
    for (const p of v.problems) lines.push({ text: `      ⚠ ${p}`, tone: 'warn' });
  }
  return lines;
}
