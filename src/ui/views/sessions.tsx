/**
 * The Sessions view (1, home): one row per iSCSI session, ⏎ opens its detail (the whole chain from
 * portal to pod, with the recovery countdown of a down session).
 */
import {
  type NodeProblems,
  nodeProblems,
  type Problem,
  problemContext,
  problemSortKey,
  sessionFilterFields,
  sessionProblem,
  severityRank,
} from '../../app/domain.js';
import type { Session, Snapshot } from '../../engine/model.js';
import { Text } from '../components/safe-text.js';
import { ScrollText } from '../components/scroll-text.js';
import type { Column, TableRow } from '../components/table-types.js';
import { wrapLines } from '../dialogs/plan-lines.js';
import { elideIqn, nodeIqnPrefix } from '../iqn-prefix.js';
import { HEALTH_LOOK, problemTone, stateTone, toneColor, VERDICT_LOOK } from '../theme.js';
import { sessionDetailLines } from './session-detail.js';
import { TableBody } from './table-body.js';
import { defineView, fromSnapshot, fromStatus, type ViewBodyProps } from './view.js';

/**
 * What drops first as the terminal narrows (what is wrong and which target beat IFACE/HOST): HOST
 * and LUN/DEV below 130 columns, IFACE and STATE below 110 (a session that is not LOGGED_IN says
 * so in its REASON). SID, TARGET, PORTAL, VERDICT, HEALTH and REASON stay down to 80 columns.
 * Every column is as wide as its content; space beyond the floors goes to REASON's first 32 cells,
 * then to TARGET's name whole (up to 40), then to the rest of REASON (table-layout.ts), so at
 * 100–160 columns a target is read whole; a REASON still cut reads whole in the strip under
 * the table (cut-strip.tsx).
 * TARGET is shown without the node's common IQN prefix (the summary line names it once), and two
 * different targets are never cut to the same text.
 */
export const SESSION_COLUMNS: readonly Column[] = [
  { id: 'sid', title: 'SID', width: 5, align: 'right' },
  { id: 'target', title: 'TARGET', width: 10, grow: 2, ample: 40, elide: 'unique' },
  { id: 'portal', title: 'PORTAL', width: 15, middle: true },
  { id: 'iface', title: 'IFACE', width: 12, middle: true, hideBelow: 110 },
  { id: 'state', title: 'STATE', width: 9, hideBelow: 110 },
  { id: 'host', title: 'HOST', width: 4, align: 'right', hideBelow: 130 },
  { id: 'luns', title: 'LUN/DEV', width: 7, align: 'right', hideBelow: 130 },
  { id: 'verdict', title: 'VERDICT', width: 10 },
  { id: 'health', title: 'HEALTH', width: 10, hideBelow: 72 },
  // The one-line why from the engine's problems rule (problems.ts): the portal outage first.
  { id: 'reason', title: 'REASON', width: 14, grow: 3, ample: 32 },
];

/**
 * A first-look session (`Session.pending`, src/watchers/first-look.ts): verdict, health and devices
 * are not read yet, so they show as '…' and match no filter, never as a guess (console start-up).
 */
function pendingSessionRow(row: TableRow): TableRow {
  const cells = [...row.cells];
  const tones = [...row.tones];
  cells[6] = '…';
  cells[7] = '… reading';
  cells[8] = '…';
  cells[9] = '';
  tones[7] = 'dim';
  tones[8] = 'dim';
  return { ...row, cells, tones, fields: { ...row.fields, verdict: '', health: '', devices: '', pods: '' } };
}

const NO_PROBLEMS = problemContext({ sessions: [], multipath: [], outages: [] } as unknown as Snapshot);

/**
 * A session's row. `p` is its problem (nodeProblems, once per snapshot); without one (a session
 * alone, no snapshot) it is judged without the node's outages and multipath maps. `prefix` is the
 * node's common IQN prefix, elided from the TARGET cell.
 */
export function sessionRow(s: Session, p: Problem = sessionProblem(s, NO_PROBLEMS), prefix = ''): TableRow {
  if (s.pending) return pendingSessionRow(sessionRow({ ...s, pending: undefined }, p, prefix));
  const v = VERDICT_LOOK[s.verdict];
  const h = HEALTH_LOOK[s.health];
  const devs = s.devices.filter((d) => d.name).length;
  const luns = `${s.devices.length}/${devs}`;
  const problemKey = problemSortKey(p);
  return {
    key: s.key,
    scope: 'session',
    label: `session ${s.sid}`,
    cells: [
      String(s.sid),
      elideIqn(s.targetIqn, prefix),
      s.portal,
      s.iface,
      s.state,
      s.hostNumber === undefined ? '-' : String(s.hostNumber),
      luns,
      `${v.symbol} ${s.verdict}`,
      `${h.symbol} ${s.health}`,
      p.reason,
    ],
    tones: [
      undefined,
      undefined,
      undefined,
      'dim',
      stateTone(s.state),
      undefined,
      undefined,
      v.tone,
      h.tone,
      problemTone(p.severity),
    ],
    fields: sessionFilterFields(s, p),
    sort: {
      sid: s.sid,
      target: s.targetIqn,
      portal: s.portal,
      iface: s.iface,
      state: s.state,
      host: s.hostNumber ?? -1,
      luns: s.devices.length,
      verdict: s.verdict,
      // Worst first, not alphabetical; within a health word, problems first (problems.ts).
      health: (4 - severityRank(s.health)) * 1e14 + problemKey,
      reason: problemKey,
      problem: problemKey,
    },
  };
}

interface CachedRow {
  row: TableRow;
  p: Problem;
  prefix: string;
}

const sessionRowCache = new WeakMap<Session, CachedRow>();

const sameProblem = (a: Problem, b: Problem) =>
  a === b || (a.severity === b.severity && a.reason === b.reason && a.since === b.since);

/**
 * The Sessions view's rows, each built once per Session object: the store hands unchanged
 * sessions of a new snapshot back as the previous objects (src/watchers/share.ts), so a refresh
 * rebuilds only the rows whose session, problem or IQN prefix changed, not all 1,000. A session's
 * problem can change while the session object does not (another session's path of its multipath
 * map fails), hence the problem is compared too.
 */
export function sessionRows(sessions: readonly Session[], problems?: NodeProblems, prefix = ''): TableRow[] {
  return sessions.map((s) => {
    const p = problems?.sessions.get(s.key) ?? sessionProblem(s, NO_PROBLEMS);
    const hit = sessionRowCache.get(s);
    if (hit && hit.prefix === prefix && sameProblem(hit.p, p)) return hit.row;
    const row = sessionRow(s, p, prefix);
    sessionRowCache.set(s, { row, p, prefix });
    return row;
  });
}

/** The view's rows over a snapshot: problems and the IQN prefix are computed once per snapshot. */
export function snapshotSessionRows(snap: Snapshot): TableRow[] {
  return sessionRows(snap.sessions, nodeProblems(snap), nodeIqnPrefix(snap));
}

function SessionsBody(props: ViewBodyProps) {
  const { detail, snapshot, theme } = props;
  if (detail === undefined || !snapshot)
    return (
      <TableBody
        {...props}
        viewId="sessions"
        empty={`no sessions: press a to attach a volume${props.backend.demoNote ? `\n\n${props.backend.demoNote}` : ''}`}
      />
    );
  const session = snapshot.sessions.find((x) => x.key === detail);
  if (!session) {
    return (
      <Text
        color={toneColor(theme, 'warn')}
      >{`Session ${detail} is gone (logged out or removed). esc returns to the list.`}</Text>
    );
  }
  // Wrapped, never cut: mount paths and the recovery line read in full at 80 columns.
  const lines = wrapLines(
    sessionDetailLines(snapshot, session, props.now, props.backend.actions),
    props.width,
  );
  return (
    <ScrollText lines={lines} height={props.height} width={props.width} offset={props.scroll} theme={theme} />
  );
}

export const sessionsView = defineView({
  id: 'sessions',
  columns: SESSION_COLUMNS,
  rows: fromSnapshot(snapshotSessionRows),
  scrolls: (detail) => detail !== undefined,
  scrollLines(snapshot, detail, width) {
    if (detail === undefined || !snapshot) return undefined;
    const session = snapshot.sessions.find((x) => x.key === detail);
    return session ? wrapLines(sessionDetailLines(snapshot, session, 0), width).length : 0;
  },
  open: (row) => ({ view: 'sessions', detail: row.key }),
  json: fromStatus((row) => ({ kind: 'session', key: row.key })),
  Body: SessionsBody,
});
