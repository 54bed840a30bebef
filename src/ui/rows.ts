/**
 * Snapshot → table rows for every list view. Pure functions, so they are tested without Ink and
 * memoised on the snapshot reference by the views.
 */

import { recordKey } from '../engine/actions/lookup.js';
import { addressFamily, parsePortal } from '../engine/iscsi/portal.js';
import type { NodeRecord, Session, Snapshot } from '../engine/model.js';
import { inKubelet, severityRank } from '../engine/snapshot/problems.js';
import type { NodeEvent } from '../watchers/types.js';
import type { JournalEntry } from './backend.js';
import type { Column, TableRow } from './components/table-types.js';
import { csiVolumeRows } from './csi-rows.js';
import { formatBytes, formatClock } from './format.js';
import { HEALTH_LOOK, stateTone, type Tone, VERDICT_LOOK } from './theme.js';

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

export const TARGET_COLUMNS: readonly Column[] = [
  { id: 'target', title: 'TARGET', width: 36, middle: true },
  { id: 'portal', title: 'PORTAL', width: 22, middle: true },
  { id: 'host', title: 'HOST', width: 4, align: 'right' },
  { id: 'sid', title: 'SID', width: 5, align: 'right' },
  { id: 'state', title: 'STATE', width: 9 },
  { id: 'flags', title: 'FLAGS', width: 30, flex: true, hideBelow: 90 },
];

/**
 * One row per (target, portal): portals from sessions and from kubelet's volume metadata. Flags the
 * two field bugs kubelet hits: a portal given as a hostname while sysfs shows an IP (its
 * portal→host map then misses, kubelet-iscsi-engine.md), and targets logged in through only some
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
  const rows: TableRow[] = [];
  for (const [iqn, portals] of [...byTarget].sort((a, b) => a[0].localeCompare(b[0]))) {
    const listed = [...portals.values()].filter((p) => p.listed).length;
    const loggedListed = [...portals.values()].filter((p) => p.listed && p.sessions.length > 0).length;
    for (const [portal, info] of portals) {
      const flags: string[] = [];
      const hostMap = snap.portalHostMap[iqn] ?? {};
      const parsed = parsePortal(portal);
      if (parsed && addressFamily(parsed.address) === 'hostname' && hostMap[portal] === undefined) {
        flags.push('hostname; sysfs shows an IP');
      }
      if (info.listed && info.sessions.length === 0) flags.push('listed, not logged in');
      if (listed > 1 && loggedListed > 0 && loggedListed < listed)
        flags.push(`partial ${loggedListed}/${listed}`);
      // Not `!info.listed`: a mounted volume hides the portals its iscsi.json lists (problems.ts inKubelet).
      if (info.sessions.length > 0 && !info.sessions.some(inKubelet)) flags.push('not in kubelet');
      const s = info.sessions[0];
      const host = hostMap[portal] ?? s?.hostNumber;
      rows.push({
        key: `${iqn}|${portal}`,
        cells: [
          iqn,
          portal,
          host === undefined ? '-' : String(host),
          info.sessions.map((x) => x.sid).join(',') || '-',
          s?.state ?? '-',
          flags.join('; '),
        ],
        tones: [
          undefined,
          undefined,
          undefined,
          undefined,
          stateTone(s?.state),
          flags.length ? 'warn' : undefined,
        ],
        fields: {
          target: iqn,
          portal,
          state: s?.state ?? '',
          flags: flags.join(' '),
          sid: String(s?.sid ?? ''),
        },
        sort: { target: iqn, portal, host: host ?? -1, sid: s?.sid ?? -1, state: s?.state ?? '' },
        ...(s ? { scope: 'session' as const, label: `session ${s.sid}`, actionKey: s.key } : {}),
      });
    }
  }
  return rows;
}

export const VOLUME_COLUMNS: readonly Column[] = [
  { id: 'path', title: 'GLOBAL DIR', width: 20, flex: true, middle: true },
  { id: 'mode', title: 'MODE', width: 5 },
  { id: 'lun', title: 'LUN', width: 3, align: 'right' },
  { id: 'mounted', title: 'MOUNTED', width: 7 },
  { id: 'meta', title: 'METADATA', width: 10, hideBelow: 100 },
  { id: 'sids', title: 'SIDS', width: 7 },
  { id: 'pods', title: 'PODS', width: 4, align: 'right' },
  { id: 'problems', title: 'PROBLEMS', width: 26, hideBelow: 80 },
];

export function volumeRows(snap: Snapshot): TableRow[] {
  return [...inTreeVolumeRows(snap), ...csiVolumeRows(snap)];
}

function inTreeVolumeRows(snap: Snapshot): TableRow[] {
  return snap.kubelet.volumes.map((v) => {
    const tail = v.path.startsWith(snap.kubelet.root) ? v.path.slice(snap.kubelet.root.length + 1) : v.path;
    return {
      key: v.path,
      scope: 'volume' as const,
      label: `volume ${tail.split('/').pop() ?? tail}`,
      cells: [
        tail,
        v.mode === 'filesystem' ? 'fs' : 'block',
        v.lun,
        v.mounted ? 'yes' : 'no',
        v.metadataSource,
        v.sessions.join(',') || '-',
        String(v.pods.length),
        v.problems.length ? `⚠ ${v.problems.join('; ')}` : '✓',
      ],
      tones: [
        undefined,
        undefined,
        undefined,
        v.mounted ? 'ok' : 'dim',
        v.metadataSource === 'hidden' ? 'warn' : 'dim',
        v.sessions.length ? undefined : 'warn',
        undefined,
        v.problems.length ? 'warn' : 'ok',
      ],
      fields: {
        path: v.path,
        mode: v.mode,
        iqn: v.iqn,
        portal: v.portal,
        lun: v.lun,
        mounted: v.mounted ? 'yes' : 'no',
        problems: v.problems.join(' '),
        pods: v.pods.join(','),
      },
      sort: { path: tail, mode: v.mode, lun: Number(v.lun), mounted: v.mounted ? 1 : 0, pods: v.pods.length },
    };
  });
}

export const DEVICE_COLUMNS: readonly Column[] = [
  { id: 'name', title: 'DEVICE', width: 14 },
  { id: 'hctl', title: 'H:C:T:L / WWID', width: 16, flex: true, middle: true },
  { id: 'state', title: 'STATE', width: 17 },
  { id: 'size', title: 'SIZE', width: 6, align: 'right', hideBelow: 80 },
  { id: 'holders', title: 'HOLDERS/PATHS', width: 16, middle: true },
  { id: 'mounts', title: 'MOUNTS', width: 24, middle: true, hideBelow: 90 },
  { id: 'sid', title: 'SID', width: 5, align: 'right', hideBelow: 100 },
];

/** SCSI devices (lsscsi-like, by H:C:T:L) then dm maps (multipath -ll-like). */
export function deviceRows(snap: Snapshot): TableRow[] {
  const rows: TableRow[] = [];
  for (const s of snap.sessions) {
    for (const d of s.devices) {
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
        ],
        tones: [
          undefined,
          'dim',
          stateTone(d.state),
          undefined,
          undefined,
          d.mountpoints.length ? 'ok' : 'dim',
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
        },
        sort: { name: d.name ?? '', hctl: d.hctl, state: d.state ?? '', size: d.sizeBytes ?? 0, sid: s.sid },
      });
    }
  }
  for (const m of snap.multipath) {
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
      ],
      tones: [
        'accent',
        'dim',
        degraded ? (okPaths === 0 ? 'bad' : 'warn') : 'ok',
        undefined,
        undefined,
        m.mountpoints.length ? 'ok' : 'dim',
      ],
      fields: {
        name: m.name,
        alias: m.alias,
        wwid: m.wwid,
        state: degraded ? 'degraded' : 'ok',
        holders: m.holders.join(','),
        mounts: m.mountpoints.join(','),
        kind: 'dm',
      },
      sort: { name: m.name, hctl: m.wwid, state: degraded ? 'degraded' : 'ok', size: m.sizeBytes ?? 0 },
    });
  }
  return rows;
}

export const RECORD_COLUMNS: readonly Column[] = [
  { id: 'kind', title: 'KIND', width: 6 },
  { id: 'target', title: 'TARGET / IFACE', width: 16, flex: true, middle: true },
  { id: 'portal', title: 'PORTAL', width: 22, middle: true },
  { id: 'iface', title: 'IFACE', width: 14, middle: true, hideBelow: 100 },
  { id: 'startup', title: 'STARTUP', width: 12 },
  { id: 'chap', title: 'CHAP', width: 4, hideBelow: 80 },
  { id: 'session', title: 'SESSION', width: 8 },
];

function recordRow(r: NodeRecord, sessions: Session[]): TableRow {
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
      r.targetIqn,
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
  const rows = snap.nodeRecords.map((r) => recordRow(r, snap.sessions));
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

export const EVENT_COLUMNS: readonly Column[] = [
  { id: 'at', title: 'TIME', width: 8 },
  { id: 'severity', title: 'SEV', width: 7 },
  { id: 'kind', title: 'KIND', width: 9 },
  { id: 'subject', title: 'SUBJECT', width: 24, middle: true, hideBelow: 100 },
  { id: 'message', title: 'MESSAGE', width: 20, flex: true },
];

const SEVERITY_LOOK: Record<NodeEvent['severity'], { text: string; tone: Tone }> = {
  info: { text: '· info', tone: 'dim' },
  warn: { text: '! warn', tone: 'warn' },
  error: { text: '✗ error', tone: 'bad' },
};

export function eventRow(e: NodeEvent): TableRow {
  const sev = SEVERITY_LOOK[e.severity];
  return {
    key: String(e.id),
    cells: [formatClock(e.at), sev.text, e.kind, e.subject, e.message],
    tones: ['dim', sev.tone, undefined, 'dim', undefined],
    fields: { kind: e.kind, severity: e.severity, subject: e.subject, message: e.message },
    sort: { at: e.id, severity: e.severity, kind: e.kind },
  };
}

export const JOURNAL_COLUMNS: readonly Column[] = [
  { id: 'at', title: 'TIME (UTC)', width: 19 },
  { id: 'action', title: 'ACTION', width: 13 },
  { id: 'result', title: 'RESULT', width: 8 },
  { id: 'cmds', title: 'CMDS', width: 4, align: 'right' },
  { id: 'subject', title: 'SUBJECT', width: 20, flex: true, middle: true },
];

export function journalRow(j: JournalEntry): TableRow {
  return {
    key: j.id,
    cells: [
      new Date(j.at).toISOString().slice(0, 19).replace('T', ' '),
      j.action,
      j.ok ? '✓ ok' : '✗ failed',
      String(j.commands.length),
      j.subject,
    ],
    tones: ['dim', undefined, j.ok ? 'ok' : 'bad'],
    fields: { action: j.action, subject: j.subject, result: j.ok ? 'ok' : 'failed' },
    sort: { at: j.at, action: j.action },
  };
}

/** Sorts rows by a column (numbers numerically); stable on the row key for equal values. */
export function sortRows(rows: TableRow[], sort: { column: string; desc: boolean } | undefined): TableRow[] {
  if (!sort) return rows;
  const dir = sort.desc ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = a.sort[sort.column];
    const y = b.sort[sort.column];
    let c = 0;
    if (typeof x === 'number' && typeof y === 'number') c = x - y;
    else c = String(x ?? '').localeCompare(String(y ?? ''));
    return c === 0 ? a.key.localeCompare(b.key) : c * dir;
  });
}
