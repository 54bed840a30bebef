/**
 * The Targets view's detail (⏎/`d` on a target row): one target with everything under it — the
 * portal matrix (each portal its volumes expect or that has a session: session state × path
 * state, src/engine/snapshot/expected.ts), its sessions, its LUNs with the device on each portal and
 * the map above them, the volumes that expect it and its node records.
 */
import { nodeProblems, type SurfaceAction } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';
import { problemTone, stateTone, VERDICT_LOOK } from '../theme.js';
import { portalMatrixLines } from './portal-matrix.js';

function lunLines(snap: Snapshot, iqn: string): Line[] {
  const sessions = snap.sessions.filter((s) => s.targetIqn === iqn);
  const luns = [...new Set(sessions.flatMap((s) => s.devices.map((d) => d.lun)))].sort((a, b) => a - b);
  const lines: Line[] = [{ text: '' }, { text: `LUNs (${luns.length})`, bold: true }];
  if (luns.length === 0) lines.push({ text: '  no LUN: no session of it is logged in', tone: 'dim' });
  for (const lun of luns) {
    const paths = sessions.flatMap((s) => s.devices.filter((d) => d.lun === lun).map((d) => ({ s, d })));
    const maps = [...new Set(paths.flatMap(({ d }) => d.holders))];
    lines.push({ text: `  LUN ${lun}${maps.length ? `  → ${maps.join(', ')}` : ''}` });
    for (const { s, d } of paths)
      lines.push({
        text: `      ${(d.name ?? '(sg only)').padEnd(10)} ${d.hctl.padEnd(9)} ${(d.state ?? '?').padEnd(18)} session ${s.sid} @ ${s.portal}`,
        tone: stateTone(d.state),
      });
  }
  return lines;
}

function sessionLines(snap: Snapshot, iqn: string): Line[] {
  const sessions = snap.sessions.filter((s) => s.targetIqn === iqn);
  const problems = nodeProblems(snap).sessions;
  const lines: Line[] = [{ text: '' }, { text: `Sessions (${sessions.length})`, bold: true }];
  if (sessions.length === 0) lines.push({ text: '  none logged in', tone: 'warn' });
  for (const s of sessions) {
    const p = problems.get(s.key);
    lines.push({
      text: `  ${String(s.sid).padStart(4)}  ${s.portal.padEnd(21)} ${s.iface.padEnd(8)} ${s.state.padEnd(10)} ${VERDICT_LOOK[s.verdict].symbol} ${s.verdict}`,
      tone: stateTone(s.state),
    });
    if (p && p.severity !== 'ok') lines.push({ text: `        ${p.reason}`, tone: problemTone(p.severity) });
  }
  return lines;
}

/** Portals of a target no volume expects (the matrix covers only targets some volume expects). */
function plainPortalLines(snap: Snapshot, iqn: string): Line[] {
  const portals = [...new Set(snap.sessions.filter((s) => s.targetIqn === iqn).map((s) => s.portal))];
  const host = snap.portalHostMap[iqn] ?? {};
  return [
    { text: '' },
    { text: `Portals (${portals.length}; no kubelet volume or driver file expects this target)`, bold: true },
    ...portals.map((p) => ({ text: `  ${p.padEnd(22)} host ${host[p] ?? '-'}` })),
  ];
}

/** The detail of a Targets row by its key (`target|<iqn>`). */
export function targetDetailLines(
  snap: Snapshot,
  key: string,
  _now?: number,
  actions?: readonly SurfaceAction[],
): Line[] | undefined {
  if (!key.startsWith('target|')) return undefined;
  const iqn = key.slice('target|'.length);
  const known =
    snap.sessions.some((s) => s.targetIqn === iqn) ||
    snap.kubelet.volumes.some((v) => v.iqn === iqn) ||
    (snap.expected?.targets ?? []).some((t) => t.iqn === iqn);
  if (!known) return undefined;
  const matrix = portalMatrixLines(snap, iqn, undefined, actions);
  const vols = (snap.expected?.volumes ?? []).filter((v) => v.iqn === iqn);
  const records = snap.nodeRecords.filter((r) => r.targetIqn === iqn);
  return [
    { text: `Target ${iqn}`, bold: true },
    ...(matrix.length ? matrix : plainPortalLines(snap, iqn)),
    ...sessionLines(snap, iqn),
    ...lunLines(snap, iqn),
    { text: '' },
    { text: `Volumes that expect it (${vols.length})`, bold: true },
    ...vols.map((v) => ({
      text: `  ${v.driver} ${v.name}: ${v.paths}/${v.expectedPaths} paths${v.inUse ? ', in use' : ''}`,
      tone: v.paths < v.expectedPaths ? ('warn' as const) : undefined,
    })),
    { text: '' },
    { text: `Node records (${records.length})`, bold: true },
    ...records.map((r) => ({
      text: `  ${r.portal} iface ${r.iface} startup ${r.startup ?? '-'}`,
      tone: 'dim' as const,
    })),
  ];
}
