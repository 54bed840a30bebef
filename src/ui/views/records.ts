/** The Records view (5): open-iscsi node records (what logs in at boot) and ifaces. */
import { recordKey } from '../../app/domain.js';
import type { NodeRecord, Session, Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import { elideIqn, nodeIqnPrefix } from '../iqn-prefix.js';
import { defineDetailView } from './detail-pane.js';
import { recordDetailLines } from './record-detail.js';
import { fromSnapshot, fromStatus } from './view.js';

const RECORD_COLUMNS: readonly Column[] = [
  { id: 'kind', title: 'KIND', width: 6 },
  // As wide as the longest name (no blank columns at 160); different targets never cut alike.
  { id: 'target', title: 'TARGET / IFACE', width: 16, grow: 2, elide: 'unique' },
  { id: 'portal', title: 'PORTAL', width: 15, middle: true },
  { id: 'iface', title: 'IFACE', width: 14, middle: true, hideBelow: 100 },
  { id: 'startup', title: 'STARTUP', width: 12 },
  { id: 'chap', title: 'CHAP', width: 4, hideBelow: 80 },
  { id: 'session', title: 'SESSION', width: 8 },
];

function recordRow(r: NodeRecord, sessions: Session[], prefix: string): TableRow {
  const s = sessions.find((x) => x.targetIqn === r.targetIqn && x.portal === r.portal && x.iface === r.iface);
  // node.startup=automatic logs in at boot (iscsid.conf): a stale record comes back after reboot.
  const auto = r.startup === 'automatic';
  return {
    key: r.path,
    actionKey: recordKey(r),
    scope: 'record',
    label: `record ${r.targetIqn} @ ${r.portal}`,
    cells: [
      'node',
      // Without the node's common IQN prefix, as every table (the summary line names it once).
      elideIqn(r.targetIqn, prefix),
      r.portal,
      r.iface,
      auto ? '⚑ automatic' : (r.startup ?? '-'),
      r.chap ? 'yes' : 'no',
      s ? `sid ${s.sid}` : '-',
    ],
    tones: ['dim', undefined, undefined, 'dim', auto ? 'warn' : undefined, undefined, s ? 'ok' : 'dim'],
    fields: {
      kind: 'node',
      target: r.targetIqn,
      portal: r.portal,
      iface: r.iface,
      startup: r.startup ?? '',
      session: s ? String(s.sid) : '',
    },
    sort: { kind: 'node', target: r.targetIqn, portal: r.portal, iface: r.iface, startup: r.startup ?? '' },
  };
}

export function recordRows(snap: Snapshot): TableRow[] {
  const prefix = nodeIqnPrefix(snap);
  const rows = snap.nodeRecords.map((r) => recordRow(r, snap.sessions, prefix));
  for (const i of snap.ifaces) {
    rows.push({
      key: i.path,
      cells: ['iface', i.name, i.ipaddress ?? '-', i.netdev ?? i.transport ?? '-', '', '', ''],
      tones: ['accent', undefined, undefined, 'dim'],
      fields: { kind: 'iface', target: i.name, iface: i.name, initiator: i.initiatorName ?? '' },
      sort: { kind: 'iface', target: i.name },
    });
  }
  return rows;
}

export const recordsView = defineDetailView({
  id: 'records',
  columns: RECORD_COLUMNS,
  rows: fromSnapshot(recordRows),
  detail: { lines: recordDetailLines, empty: 'no node records or ifaces' },
  json: fromStatus((row) => ({ kind: row.scope === 'record' ? 'record' : 'iface', path: row.key })),
});
