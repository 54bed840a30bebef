/**
 * The Devices view (4): multipath maps each followed by its paths (the sd devices under it,
 * indented, as `multipath -ll` groups them), then the SCSI disks no map holds (lsscsi-like, by
 * session). POD names who uses each row (the engine's device-users.ts); ⏎/`d` opens its detail.
 */
import { type DeviceUsers, deviceUsers, mapUsers, nodeProblems, podLabel } from '../../app/domain.js';
import type { MultipathMap, ScsiDevice, Session, Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import { formatBytes } from '../format.js';
import { stateTone, type Tone } from '../theme.js';
import { defineDetailView } from './detail-pane.js';
import { deviceDetailLines, mapRowKey } from './device-detail.js';
import { asGroup, treeMark } from './group-rows.js';
import { OK_PROBLEM, problemCell } from './problem-cell.js';
import { fromSnapshot, fromStatus } from './view.js';

/**
 * STATE already says what is wrong with a device or map itself (`transport-offline`, `! 1/2 paths`);
 * PROBLEMS adds why in the engine's words (problems.ts: `session 7 FAILED`, `map mpatha lost path
 * sdc`) and grows first, then POD. MOUNTS is short (kubelet's mounts counted, others by path; the
 * detail lists them all), so it and SID stay at 80 columns; there the map's paths are its rows below
 * it, so HOLDERS/PATHS, H:C:T:L and SIZE go first.
 */
const DEVICE_COLUMNS: readonly Column[] = [
  { id: 'name', title: 'DEVICE', width: 11 },
  { id: 'hctl', title: 'H:C:T:L / WWID', width: 12, grow: 1, middle: true, hideBelow: 100 },
  { id: 'state', title: 'STATE', width: 17 },
  { id: 'size', title: 'SIZE', width: 6, align: 'right', hideBelow: 110 },
  { id: 'holders', title: 'HOLDERS/PATHS', width: 14, middle: true, hideBelow: 120 },
  { id: 'mounts', title: 'MOUNTS', width: 10, middle: true },
  { id: 'sid', title: 'SID', width: 4, align: 'right' },
  { id: 'pod', title: 'POD', width: 14, grow: 2 },
  { id: 'problems', title: 'PROBLEMS', width: 12, grow: 3 },
];

/** `streaming/kafka-0`, `a/x +1` for more than one, `-` for none. */
function podCell(snap: Snapshot, u: DeviceUsers): string {
  const [first, ...rest] = u.pods;
  if (first === undefined) return '-';
  return `${podLabel(snap.kubelet.pods, first)}${rest.length ? ` +${rest.length}` : ''}`;
}

/** Mounts below the kubelet root as `kubelet(n)` (the detail lists them), others by path. */
function mountsCell(snap: Snapshot, mounts: readonly string[], swap: boolean): string {
  const root = `${snap.kubelet.root}/`;
  const kubelet = mounts.filter((m) => m.startsWith(root)).length;
  const other = mounts.filter((m) => !m.startsWith(root));
  const parts = [...(kubelet ? [`kubelet(${kubelet})`] : []), ...other, ...(swap ? ['swap'] : [])];
  return parts.join(',') || '-';
}

/** A row's tones in DEVICE_COLUMNS order: what differs between a map and a device is passed in. */
function rowTones(name: Tone, state: Tone, mounted: boolean, u: DeviceUsers, problem: Tone): Tone[] {
  return [
    name,
    'dim',
    state,
    undefined,
    undefined,
    mounted ? 'ok' : 'dim',
    undefined,
    u.pods.length ? undefined : 'dim',
    problem,
  ];
}

function deviceRow(snap: Snapshot, s: Session, d: ScsiDevice, indent: string): TableRow {
  const p = problemCell(nodeProblems(snap).devices.get(d.key) ?? OK_PROBLEM);
  const u = deviceUsers(snap, d, s);
  const pods = u.pods.map((uid) => podLabel(snap.kubelet.pods, uid));
  return {
    key: d.key,
    scope: 'device',
    label: d.name ?? d.hctl,
    cells: [
      `${indent}${d.name ?? '(sg only)'}`,
      d.hctl,
      d.state ?? '?',
      formatBytes(d.sizeBytes),
      d.holders.join(',') || '-',
      mountsCell(snap, d.mountpoints, d.swap),
      String(s.sid),
      podCell(snap, u),
      p.text,
    ],
    tones: rowTones(undefined, stateTone(d.state), d.mountpoints.length > 0, u, p.tone),
    fields: {
      name: d.name ?? '',
      hctl: d.hctl,
      state: d.state ?? '',
      wwid: d.wwid ?? '',
      holders: d.holders.join(','),
      mounts: d.mountpoints.join(','),
      sid: String(s.sid),
      pod: pods.join(','),
      pods: u.pods.join(','),
      kind: 'sd',
      problems: p.field,
    },
    sort: {
      name: d.name ?? '',
      hctl: d.hctl,
      state: d.state ?? '',
      size: d.sizeBytes ?? 0,
      sid: s.sid,
      pod: pods.join(','),
      problems: p.sort,
      problem: p.sort,
    },
  };
}

function mapRow(snap: Snapshot, m: MultipathMap): TableRow {
  const p = problemCell(nodeProblems(snap).maps.get(m.name) ?? OK_PROBLEM);
  const okPaths = m.slaves.length - m.failedSlaves.length;
  const degraded = m.failedSlaves.length > 0;
  const u = mapUsers(snap, m);
  const pods = u.pods.map((uid) => podLabel(snap.kubelet.pods, uid));
  return {
    key: mapRowKey(m),
    actionKey: m.name,
    scope: 'multipath',
    label: `${m.alias} (${m.name})`,
    cells: [
      `${m.name} ${m.alias}`,
      m.wwid,
      `${degraded ? '!' : '✓'} ${okPaths}/${m.slaves.length} paths`,
      formatBytes(m.sizeBytes),
      m.slaves.map((x) => (m.failedSlaves.includes(x) ? `${x}✗` : x)).join(','),
      mountsCell(snap, m.mountpoints, false),
      '',
      podCell(snap, u),
      p.text,
    ],
    tones: rowTones(
      'accent',
      degraded ? (okPaths === 0 ? 'bad' : 'warn') : 'ok',
      m.mountpoints.length > 0,
      u,
      p.tone,
    ),
    fields: {
      name: m.name,
      alias: m.alias,
      wwid: m.wwid,
      state: degraded ? 'degraded' : 'ok',
      holders: m.holders.join(','),
      mounts: m.mountpoints.join(','),
      pod: pods.join(','),
      pods: u.pods.join(','),
      kind: 'dm',
      problems: p.field,
    },
    sort: {
      name: m.name,
      hctl: m.wwid,
      state: degraded ? 'degraded' : 'ok',
      size: m.sizeBytes ?? 0,
      pod: pods.join(','),
      problems: p.sort,
      problem: p.sort,
    },
  };
}

/** Each map, then its paths (`├`/`└`); then the disks no map holds, by session. */
export function deviceRows(snap: Snapshot): TableRow[] {
  const rows: TableRow[] = [];
  const inMap = new Set<string>();
  const byName = new Map<string, { s: Session; d: ScsiDevice }>();
  for (const s of snap.sessions) for (const d of s.devices) if (d.name) byName.set(d.name, { s, d });
  for (const m of snap.multipath) {
    const paths = m.slaves.flatMap((n) => {
      const x = byName.get(n);
      return x ? [x] : [];
    });
    const group = [mapRow(snap, m)];
    paths.forEach(({ s, d }, i) => {
      inMap.add(d.key);
      group.push(deviceRow(snap, s, d, treeMark(i, paths.length)));
    });
    rows.push(...asGroup(group));
  }
  for (const s of snap.sessions)
    for (const d of s.devices) if (!inMap.has(d.key)) rows.push(deviceRow(snap, s, d, ''));
  return rows;
}

export const devicesView = defineDetailView({
  id: 'devices',
  columns: DEVICE_COLUMNS,
  rows: fromSnapshot(deviceRows),
  detail: { lines: deviceDetailLines, empty: 'no SCSI devices' },
  // By the key alone: in a detail, `y` gets the row key only (a map's is `dm|<name>`).
  json: fromStatus((row) =>
    row.key.startsWith('dm|')
      ? { kind: 'multipath', name: row.key.slice(3) }
      : { kind: 'device', key: row.key },
  ),
});
