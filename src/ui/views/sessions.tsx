/**
 * The Sessions view (1, home): one row per iSCSI session, ⏎ opens its detail (the whole chain from
 * portal to pod, with the recovery countdown of a down session).
 */
import { severityRank } from '../../app/domain.js';
import type { Session } from '../../engine/model.js';
import { Text } from '../components/safe-text.js';
import { ScrollText } from '../components/scroll-text.js';
import type { Column, TableRow } from '../components/table-types.js';
import { HEALTH_LOOK, stateTone, toneColor, VERDICT_LOOK } from '../theme.js';
import { sessionDetailLines } from './session-detail.js';
import { TableBody } from './table-body.js';
import { defineView, fromSnapshot, type ViewBodyProps } from './view.js';

export const SESSION_COLUMNS: readonly Column[] = [
  { id: 'sid', title: 'SID', width: 5, align: 'right' },
  { id: 'target', title: 'TARGET', width: 16, flex: true, middle: true },
  { id: 'portal', title: 'PORTAL', width: 21, middle: true },
  { id: 'iface', title: 'IFACE', width: 12, middle: true, hideBelow: 110 },
  { id: 'state', title: 'STATE', width: 9 },
  { id: 'host', title: 'HOST', width: 4, align: 'right', hideBelow: 90 },
  { id: 'luns', title: 'LUN/DEV', width: 7, align: 'right', hideBelow: 96 },
  { id: 'verdict', title: 'VERDICT', width: 10 },
  { id: 'health', title: 'HEALTH', width: 10, hideBelow: 72 },
  // The row's first reason: a portal outage comes first (verdicts.ts), so a dead portal reads on the row.
  { id: 'reason', title: 'REASON', width: 24, flex: true, hideBelow: 130 },
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

export function sessionRow(s: Session): TableRow {
  if (s.pending) return pendingSessionRow(sessionRow({ ...s, pending: undefined }));
  const v = VERDICT_LOOK[s.verdict];
  const h = HEALTH_LOOK[s.health];
  const devs = s.devices.filter((d) => d.name).length;
  const luns = `${s.devices.length}/${devs}`;
  return {
    key: s.key,
    scope: 'session',
    label: `session ${s.sid}`,
    cells: [
      String(s.sid),
      s.targetIqn,
      s.portal,
      s.iface,
      s.state,
      s.hostNumber === undefined ? '-' : String(s.hostNumber),
      luns,
      `${v.symbol} ${s.verdict}`,
      `${h.symbol} ${s.health}`,
      s.reasons[0] ?? '',
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
      s.verdict === 'outage' || s.health === 'failed' ? 'bad' : 'dim',
    ],
    fields: {
      sid: String(s.sid),
      target: s.targetIqn,
      iqn: s.targetIqn,
      portal: s.portal,
      iface: s.iface,
      state: s.state,
      host: s.hostNumber === undefined ? '' : String(s.hostNumber),
      verdict: s.verdict,
      health: s.health,
      devices: s.devices.map((d) => d.name ?? d.hctl).join(','),
      pods: s.pods.join(','),
      reason: s.reasons[0] ?? '',
    },
    sort: {
      sid: s.sid,
      target: s.targetIqn,
      portal: s.portal,
      iface: s.iface,
      state: s.state,
      host: s.hostNumber ?? -1,
      luns: s.devices.length,
      verdict: s.verdict,
      health: -severityRank(s.health), // worst first, not alphabetical (problems.ts)
      reason: s.reasons[0] ?? '',
    },
  };
}

const sessionRowCache = new WeakMap<Session, TableRow>();

/**
 * The Sessions view's rows, each built once per Session object: the store hands unchanged
 * sessions of a new snapshot back as the previous objects (src/watchers/share.ts), so a refresh
 * rebuilds only the rows that changed, not all 1,000.
 */
export function sessionRows(sessions: readonly Session[]): TableRow[] {
  return sessions.map((s) => {
    let row = sessionRowCache.get(s);
    if (!row) {
      row = sessionRow(s);
      sessionRowCache.set(s, row);
    }
    return row;
  });
}

function SessionsBody(props: ViewBodyProps) {
  const { detail, snapshot, theme } = props;
  if (detail === undefined || !snapshot) return <TableBody {...props} viewId="sessions" />;
  const session = snapshot.sessions.find((x) => x.key === detail);
  if (!session) {
    return (
      <Text
        color={toneColor(theme, 'warn')}
      >{`Session ${detail} is gone (logged out or removed). esc returns to the list.`}</Text>
    );
  }
  const lines = sessionDetailLines(snapshot, session, props.now);
  return (
    <ScrollText lines={lines} height={props.height} width={props.width} offset={props.scroll} theme={theme} />
  );
}

export const sessionsView = defineView({
  id: 'sessions',
  key: 1,
  aliases: ['s', 'se', 'session'],
  help: 'iSCSI sessions (home)',
  columns: SESSION_COLUMNS,
  rows: fromSnapshot((snapshot) => sessionRows(snapshot.sessions)),
  scrolls: (detail) => detail !== undefined,
  scrollLines(snapshot, detail) {
    if (detail === undefined || !snapshot) return undefined;
    const session = snapshot.sessions.find((x) => x.key === detail);
    return session ? sessionDetailLines(snapshot, session, 0).length : 0;
  },
  open: (row) => ({ view: 'sessions', detail: row.key }),
  Body: SessionsBody,
});
