/**
 * The Targets view (2): one row per target (how many of its portals are logged in, its sessions and
 * LUNs), then its portals (session, host: the portal→host map kubelet relies on, LUNs, paths).
 */
import {
  addressFamily,
  inKubelet,
  nodeProblems,
  parsePortal,
  portalMatrixCells,
  problemContext,
  statusParts,
  targetProblem,
} from '../../app/domain.js';
import type { ExpectedPortalRow, Session, Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import { elideIqn, nodeIqnPrefix } from '../iqn-prefix.js';
import { stateTone } from '../theme.js';
import { defineDetailView } from './detail-pane.js';
import { asGroup, treeMark } from './group-rows.js';
import { OK_PROBLEM, problemCell } from './problem-cell.js';
import { targetDetailLines } from './target-detail.js';
import { fromSnapshot } from './view.js';

/**
 * Columns as wide as their content; PROBLEMS grows first, then TARGET (without the node's common
 * IQN prefix, never cut so that two targets read alike), then PATHS; HOST stays (the
 * portal→host map is this view's point). PROBLEMS is the engine's rule for the row's sessions (problems.ts
 * targetProblem: the worst session, `not in kubelet`), then the portal flags only this view knows.
 */
const TARGET_COLUMNS: readonly Column[] = [
  { id: 'target', title: 'TARGET', width: 16, grow: 2, elide: 'unique' },
  // The target row's `2/2 portals logged in` (21 cells) reads whole; a long hostname portal is
  // cut in the middle.
  { id: 'portal', title: 'PORTAL', width: 21, middle: true },
  { id: 'host', title: 'HOST', width: 4, align: 'right' },
  { id: 'sid', title: 'SID', width: 5, align: 'right' },
  { id: 'state', title: 'STATE', width: 9 },
  // The LUNs each session shows (`1:sdb`); on a target row, the LUN numbers.
  { id: 'luns', title: 'LUNS', width: 10, hideBelow: 100 },
  // The portal matrix's path state (expected state): each expected LUN's device on this portal.
  { id: 'paths', title: 'PATHS', width: 16, grow: 1, hideBelow: 120 },
  // Floor 18, not 20: at 80 columns the target's name and its portal count then stay whole.
  { id: 'flags', title: 'PROBLEMS', width: 18, grow: 3 },
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

type PortalInfo = { sessions: Session[]; listed: boolean };

interface TargetContext {
  snap: Snapshot;
  matrix: Map<string, ExpectedPortalRow>;
  ctx: ReturnType<typeof problemContext>;
  prefix: string;
}

/** `1:sdb` per device of the sessions (`1:-` for a LUN without a block device). */
const lunCells = (sessions: readonly Session[]) =>
  sessions.flatMap((s) =>
    s.devices.filter((d) => d.lun !== 0 || d.name).map((d) => `${d.lun}:${d.name ?? '-'}`),
  );

/** One (target, portal) row under its target: its sessions, host, LUNs, paths and problems. */
function portalRow(
  t: TargetContext,
  iqn: string,
  portal: string,
  info: PortalInfo,
  counts: { listed: number; loggedListed: number },
  mark: string,
): TableRow {
  const { snap } = t;
  const hostMap = snap.portalHostMap[iqn] ?? {};
  const flags = portalFlags(portal, info, hostMap, counts.listed, counts.loggedListed);
  // The sessions' problem (targetProblem words `not in kubelet` itself), then the portal flags;
  // reasons on an ok severity (a foreign session kubelet does not know) read as a warning.
  const missing =
    info.sessions.length === 0
      ? snap.expected?.volumes.find((v) => v.iqn === iqn && v.missingPortals.includes(portal))
      : undefined;
  const problem =
    info.sessions.length > 0
      ? targetProblem(info.sessions, t.ctx)
      : ((missing && nodeProblems(snap).expected.get(missing.path)) ?? OK_PROBLEM);
  const reasons = [...problem.reasons, ...flags.filter((f) => !problem.reasons.includes(f))];
  const cell = problemCell(
    problem.severity === 'ok' && reasons.length > 0
      ? { severity: 'warning', reasons, reason: reasons.join('; ') }
      : { ...problem, reason: reasons.join('; ') },
  );
  const s = info.sessions[0];
  const host = hostMap[portal] ?? s?.hostNumber;
  const m = t.matrix.get(`${iqn}|${portal}`);
  const paths = m ? portalMatrixCells(m).paths : '';
  const luns = lunCells(info.sessions);
  return {
    key: `${iqn}|${portal}`,
    cells: [
      mark,
      portal,
      host === undefined ? '-' : String(host),
      info.sessions.map((x) => x.sid).join(',') || '-',
      s?.state ?? '-',
      luns.join(',') || '-',
      paths || '-',
      cell.text,
    ],
    tones: [
      'dim',
      undefined,
      undefined,
      undefined,
      missing ? 'bad' : stateTone(s?.state),
      undefined,
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
      luns: luns.join(','),
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
      flags: cell.sort,
      problem: cell.sort,
    },
    // A logged-in portal acts on its session; a missing one on the volume that expects it (restore).
    ...(s
      ? { scope: 'session' as const, label: `session ${s.sid}`, actionKey: s.key }
      : missing
        ? { scope: 'volume' as const, label: `volume ${missing.name}`, actionKey: missing.path }
        : {}),
  };
}

/** The target's own row: how many portals are logged in, its sessions, its LUNs, its worst problem. */
function targetRow(
  t: TargetContext,
  iqn: string,
  portals: Map<string, PortalInfo>,
  children: TableRow[],
): TableRow {
  const sessions = [...portals.values()].flatMap((p) => p.sessions);
  const logged = [...portals.values()].filter((p) => p.sessions.some((x) => x.state === 'LOGGED_IN')).length;
  const worst = children.reduce<TableRow | undefined>(
    (w, r) => (w === undefined || Number(r.sort.problem) < Number(w.sort.problem) ? r : w),
    undefined,
  );
  const states = [...new Set(sessions.map((x) => x.state))];
  const luns = [...new Set(sessions.flatMap((x) => x.devices.filter((d) => d.name).map((d) => d.lun)))];
  const n = portals.size;
  return {
    key: `target|${iqn}`,
    cells: [
      elideIqn(iqn, t.prefix),
      `${logged}/${n} portal${n === 1 ? '' : 's'} logged in`,
      '',
      sessions.map((x) => x.sid).join(',') || '-',
      states.length === 1 ? states[0]! : states.length ? 'mixed' : '-',
      luns.length ? `LUN ${luns.join(',')}` : '-',
      '',
      worst?.cells[worst.cells.length - 1] ?? '✓',
    ],
    tones: [
      'accent',
      logged < n ? 'warn' : 'dim',
      undefined,
      undefined,
      states.length === 1 ? stateTone(states[0]) : 'warn',
      undefined,
      undefined,
      worst?.tones[worst.tones.length - 1],
    ],
    fields: {
      target: iqn,
      portal: [...portals.keys()].join(' '),
      sid: sessions.map((x) => x.sid).join(','),
      state: states.join(','),
      problems: worst?.fields.problems ?? '',
      kind: 'target',
    },
    sort: { target: iqn, portal: '', sid: sessions[0]?.sid ?? -1, problem: Number(worst?.sort.problem ?? 0) },
  };
}

/** Every (target, portal) the node knows: from sessions, kubelet volumes and expected state. */
function portalsByTarget(snap: Snapshot): {
  byTarget: Map<string, Map<string, PortalInfo>>;
  matrix: Map<string, ExpectedPortalRow>;
} {
  const byTarget = new Map<string, Map<string, PortalInfo>>();
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
  return { byTarget, matrix };
}

/**
 * One row per target, then one per (target, portal) under it: portals from sessions and from
 * kubelet's volume metadata. Flags the two field bugs kubelet hits: a portal given as a hostname
 * while sysfs shows an IP (its portal→host map then misses, docs/kubelet-iscsi.md#portal-host-map),
 * and targets logged in through only some of the portals kubelet lists (kubernetes#45394).
 */
export function targetRows(snap: Snapshot): TableRow[] {
  const { byTarget, matrix } = portalsByTarget(snap);
  const t: TargetContext = { snap, matrix, ctx: problemContext(snap), prefix: nodeIqnPrefix(snap) };
  const rows: TableRow[] = [];
  for (const [iqn, portals] of [...byTarget].sort((a, b) => a[0].localeCompare(b[0]))) {
    const listed = [...portals.values()].filter((p) => p.listed).length;
    const loggedListed = [...portals.values()].filter((p) => p.listed && p.sessions.length > 0).length;
    const list = [...portals];
    const children = list.map(([portal, info], i) =>
      portalRow(t, iqn, portal, info, { listed, loggedListed }, treeMark(i, list.length)),
    );
    rows.push(...asGroup([targetRow(t, iqn, portals, children), ...children]));
  }
  return rows;
}

export const targetsView = defineDetailView({
  id: 'targets',
  columns: TARGET_COLUMNS,
  rows: fromSnapshot(targetRows),
  // A target row opens the target's detail (portal matrix, sessions, LUNs); a logged-in portal
  // row its session's detail.
  detail: { lines: targetDetailLines },
  open: (row) =>
    row.key.startsWith('target|')
      ? { view: 'targets', detail: row.key }
      : row.scope === 'session' && row.actionKey
        ? { view: 'sessions', detail: row.actionKey }
        : undefined,
  // A target row: the objects of each of its portals; a portal row: that (target, portal).
  json: (row, { snapshot }) =>
    snapshot
      ? (row.fields.portal ?? '')
          .split(' ')
          .filter(Boolean)
          .flatMap((portal) =>
            statusParts(snapshot, { kind: 'target', iqn: row.fields.target ?? '', portal }),
          )
      : undefined,
});
