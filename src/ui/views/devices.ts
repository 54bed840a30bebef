/** The Devices view (4): SCSI disks by H:C:T:L (lsscsi-like), then multipath maps (multipath -ll-like). */
import { nodeProblems } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import { formatBytes } from '../format.js';
import { stateTone } from '../theme.js';
import { OK_PROBLEM, problemCell } from './problem-cell.js';
import { defineView, fromSnapshot, fromStatus } from './view.js';

/**
 * STATE already says what is wrong with a device or map itself (`transport-offline`, `! 1/2 paths`);
 * PROBLEMS adds why in the engine's words (problems.ts: `session 7 FAILED`, `map mpatha lost path
 * sdc`) and grows first. At 80 columns SIZE, MOUNTS and SID drop before it.
 */
const DEVICE_COLUMNS: readonly Column[] = [
  { id: 'name', title: 'DEVICE', width: 12 },
  { id: 'hctl', title: 'H:C:T:L / WWID', width: 12, grow: 1, middle: true },
  { id: 'state', title: 'STATE', width: 17 },
  { id: 'size', title: 'SIZE', width: 6, align: 'right', hideBelow: 100 },
  { id: 'holders', title: 'HOLDERS/PATHS', width: 14, middle: true },
  { id: 'mounts', title: 'MOUNTS', width: 24, grow: 2, elide: 'start', hideBelow: 120 },
  { id: 'sid', title: 'SID', width: 5, align: 'right', hideBelow: 110 },
  { id: 'problems', title: 'PROBLEMS', width: 12, grow: 3 },
];

/** SCSI devices (lsscsi-like, by H:C:T:L) then dm maps (multipath -ll-like). */
export function deviceRows(snap: Snapshot): TableRow[] {
  const rows: TableRow[] = [];
  const problems = nodeProblems(snap);
  for (const s of snap.sessions) {
    for (const d of s.devices) {
      // A first-look session has no devices; pending ones are never judged (problems.ts).
      const p = problemCell(problems.devices.get(d.key) ?? OK_PROBLEM);
      rows.push({
        key: d.key,
        scope: 'device',
        label: d.name ?? d.hctl,
        cells: [
          d.name ?? '(sg only)',
          d.hctl,
          d.state ?? '?',
          formatBytes(d.sizeBytes),
          d.holders.join(',') || '-',
          d.mountpoints.join(',') || (d.swap ? 'swap' : '-'),
          String(s.sid),
          p.text,
        ],
        tones: [
          undefined,
          'dim',
          stateTone(d.state),
          undefined,
          undefined,
          d.mountpoints.length ? 'ok' : 'dim',
          undefined,
          p.tone,
        ],
        fields: {
          name: d.name ?? '',
          hctl: d.hctl,
          state: d.state ?? '',
          wwid: d.wwid ?? '',
          holders: d.holders.join(','),
          mounts: d.mountpoints.join(','),
          sid: String(s.sid),
          kind: 'sd',
          problems: p.field,
        },
        sort: {
          name: d.name ?? '',
          hctl: d.hctl,
          state: d.state ?? '',
          size: d.sizeBytes ?? 0,
          sid: s.sid,
          problems: p.sort,
          problem: p.sort,
        },
      });
    }
  }
  for (const m of snap.multipath) {
    const p = problemCell(problems.maps.get(m.name) ?? OK_PROBLEM);
    const okPaths = m.slaves.length - m.failedSlaves.length;
    const degraded = m.failedSlaves.length > 0;
    rows.push({
      key: `dm|${m.name}`,
      actionKey: m.name,
      scope: 'multipath',
      label: `${m.alias} (${m.name})`,
      cells: [
        `${m.name} ${m.alias}`,
        m.wwid,
        `${degraded ? '!' : '✓'} ${okPaths}/${m.slaves.length} paths`,
        formatBytes(m.sizeBytes),
        m.slaves.map((x) => (m.failedSlaves.includes(x) ? `${x}✗` : x)).join(','),
        m.mountpoints.join(',') || '-',
        '',
        p.text,
      ],
      tones: [
        'accent',
        'dim',
        degraded ? (okPaths === 0 ? 'bad' : 'warn') : 'ok',
        undefined,
        undefined,
        m.mountpoints.length ? 'ok' : 'dim',
        undefined,
        p.tone,
      ],
      fields: {
        name: m.name,
        alias: m.alias,
        wwid: m.wwid,
        state: degraded ? 'degraded' : 'ok',
        holders: m.holders.join(','),
        mounts: m.mountpoints.join(','),
        kind: 'dm',
        problems: p.field,
      },
      sort: {
        name: m.name,
        hctl: m.wwid,
        state: degraded ? 'degraded' : 'ok',
        size: m.sizeBytes ?? 0,
        problems: p.sort,
        problem: p.sort,
      },
    });
  }
  return rows;
}

export const devicesView = defineView({
  id: 'devices',
  columns: DEVICE_COLUMNS,
  rows: fromSnapshot(deviceRows),
  json: fromStatus((row) =>
    row.scope === 'multipath'
      ? { kind: 'multipath', name: row.actionKey ?? '' }
      : { kind: 'device', key: row.key },
  ),
});
