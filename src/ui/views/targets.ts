/** The Targets view (2): one row per (target, portal) and the portal→host map kubelet relies on. */
import {
  addressFamily,
  inKubelet,
  nodeProblems,
  parsePortal,
  portalMatrixCells,
  problemContext,
  targetProblem,
} from '../../app/domain.js';
import type { ExpectedPortalRow, Session, Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import { elideIqn, nodeIqnPrefix } from '../iqn-prefix.js';
import { stateTone } from '../theme.js';
import { OK_PROBLEM, problemCell } from './problem-cell.js';
import { defineView, fromSnapshot, fromStatus } from './view.js';

/**
 * Columns as wide as their content; PROBLEMS grows first, then TARGET (without the node's common
 * IQN prefix, never cut so that two targets read alike), then PATHS; HOST stays (the
 * portal→host map is this view's point). PROBLEMS is the engine's rule for the row's sessions (problems.ts
 * targetProblem: the worst session, `not in kubelet`), then the portal flags only this view knows.
 */
const TARGET_COLUMNS: readonly Column[] = [
  { id: 'target', title: 'TARGET', width: 12, grow: 2, elide: 'unique' },
  { id: 'portal', title: 'PORTAL', width: 15, middle: true },
  { id: 'host', title: 'HOST', width: 4, align: 'right' },
  { id: 'sid', title: 'SID', width: 5, align: 'right' },
  { id: 'state', title: 'STATE', width: 9 },
  // The portal matrix's path state (expected state): each expected LUN's device on this portal.
  { id: 'paths', title: 'PATHS', width: 16, grow: 1, hideBelow: 110 },
  { id: 'flags', title: 'PROBLEMS', width: 20, grow: 3 },
];

/** A (target, portal) row's own flags, beside its sessions' problem. */
function portalFlags(
  portal: string,
  info: { sessions: Session[]; listed: boolean },
  hostMap: Readonly<Record<string, number | undefined>>,
  listed: number,
  loggedListed: number,
): string[] {
  const flags: string[] = [];
  const parsed = parsePortal(portal);
  if (parsed && addressFamily(parsed.address) === 'hostname' && hostMap[portal] === undefined) {
    flags.push('hostname; sysfs shows an IP');
  }
  if (info.listed && info.sessions.length === 0) flags.push('listed, not logged in');
  if (listed > 1 && loggedListed > 0 && loggedListed < listed)
    flags.push(`partial ${loggedListed}/${listed}`);
  // Not `!info.listed`: a mounted volume hides the portals its iscsi.json lists (problems.ts inKubelet).
  if (info.sessions.length > 0 && !info.sessions.some(inKubelet)) flags.push('not in kubelet');
  return flags;
}

/**
 * One row per (target, portal): portals from sessions and from kubelet's volume metadata. Flags the
 * two field bugs kubelet hits: a portal given as a hostname while sysfs shows an IP (its
 * portal→host map then misses, docs/kubelet-iscsi.md#portal-host-map), and targets logged in through only some
 * of the portals kubelet lists (kubernetes#45394).
 */
export function targetRows(snap: Snapshot): TableRow[] {
  const byTarget = new Map<string, Map<string, { sessions: Session[]; listed: boolean }>>();
  const entry = (iqn: string, portal: string) => {
    let t = byTarget.get(iqn);
    if (!t) {
      t = new Map();
      byTarget.set(iqn, t);
    }
    let p = t.get(portal);
    if (!p) {
      p = { sessions: [], listed: false };
      t.set(portal, p);
    }
    return p;
  };
  for (const s of snap.sessions) entry(s.targetIqn, s.portal).sessions.push(s);
  for (const v of snap.kubelet.volumes) {
    const portals = new Set([v.portal, ...(v.metadata?.Portals ?? [])].filter(Boolean));
    for (const p of portals) entry(v.iqn, p).listed = true;
  }
  // Every portal a volume expects (driver files too, expected.ts), with the matrix row of each.
  const matrix = new Map<string, ExpectedPortalRow>();
  for (const t of snap.expected?.targets ?? [])
    for (const r of t.portals) {
      matrix.set(`${t.iqn}|${r.portal}`, r);
      if (r.expected) entry(t.iqn, r.portal).listed = true;
    }
  const expectedProblems = nodeProblems(snap).expected;
  /** The first volume that expects this portal and has no session there: restore's input. */
  const missingFor = (iqn: string, portal: string) =>
    snap.expected?.volumes.find((v) => v.iqn === iqn && v.missingPortals.includes(portal));
  const rows: TableRow[] = [];
  const ctx = problemContext(snap);
  const prefix = nodeIqnPrefix(snap);
  for (const [iqn, portals] of [...byTarget].sort((a, b) => a[0].localeCompare(b[0]))) {
    const listed = [...portals.values()].filter((p) => p.listed).length;
    const loggedListed = [...portals.values()].filter((p) => p.listed && p.sessions.length > 0).length;
    for (const [portal, info] of portals) {
      const hostMap = snap.portalHostMap[iqn] ?? {};
      const flags = portalFlags(portal, info, hostMap, listed, loggedListed);
      // The sessions' problem (targetProblem words `not in kubelet` itself), then the portal flags;
      // reasons on an ok severity (a foreign session kubelet does not know) read as a warning.
      const missing = info.sessions.length === 0 ? missingFor(iqn, portal) : undefined;
      const problem =
        info.sessions.length > 0
          ? targetProblem(info.sessions, ctx)
          : ((missing && expectedProblems.get(missing.path)) ?? OK_PROBLEM);
      const reasons = [...problem.reasons, ...flags.filter((f) => !problem.reasons.includes(f))];
      const cell = problemCell(
        problem.severity === 'ok' && reasons.length > 0
          ? { severity: 'warning', reasons, reason: reasons.join('; ') }
          : { ...problem, reason: reasons.join('; ') },
      );
      const text = cell.text;
      const rank = cell.sort;
      const s = info.sessions[0];
      const host = hostMap[portal] ?? s?.hostNumber;
      const m = matrix.get(`${iqn}|${portal}`);
      const paths = m ? portalMatrixCells(m).paths : '';
      rows.push({
        key: `${iqn}|${portal}`,
        cells: [
          elideIqn(iqn, prefix),
          portal,
          host === undefined ? '-' : String(host),
          info.sessions.map((x) => x.sid).join(',') || '-',
          s?.state ?? '-',
          paths || '-',
          text,
        ],
        tones: [
          undefined,
          undefined,
          undefined,
          undefined,
          missing ? 'bad' : stateTone(s?.state),
          paths.includes('no device') ? 'bad' : undefined,
          cell.tone,
        ],
        fields: {
          target: iqn,
          portal,
          state: s?.state ?? '',
          flags: flags.join(' '),
          problems: cell.field,
          sid: String(s?.sid ?? ''),
          paths,
        },
        sort: {
          target: iqn,
          portal,
          host: host ?? -1,
          sid: s?.sid ?? -1,
          state: s?.state ?? '',
          paths,
          // A portal flag alone (listed, not logged in) ranks as a warning.
          flags: rank,
          problem: rank,
        },
        // A logged-in portal acts on its session; a missing one on the volume that expects it (restore).
        ...(s
          ? { scope: 'session' as const, label: `session ${s.sid}`, actionKey: s.key }
          : missing
            ? { scope: 'volume' as const, label: `volume ${missing.name}`, actionKey: missing.path }
            : {}),
      });
    }
  }
  return rows;
}

export const targetsView = defineView({
  id: 'targets',
  columns: TARGET_COLUMNS,
  rows: fromSnapshot(targetRows),
  // A logged-in target row opens its session's detail.
  open: (row) =>
    row.scope === 'session' && row.actionKey ? { view: 'sessions', detail: row.actionKey } : undefined,
  json: fromStatus((row) => ({
    kind: 'target',
    iqn: row.fields.target ?? '',
    portal: row.fields.portal ?? '',
  })),
});
