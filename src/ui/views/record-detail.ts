/**
 * The Records view's detail (⏎/`d` on a row). A node record: what open-iscsi keeps for a
 * target/portal/iface (node.startup, node.conn[0].startup's scan, whether CHAP is set — never its
 * values, which the snapshot does not hold), its file, the session it matches and the kubelet or
 * driver volumes that expect it. An iface: its transport, initiator, addresses and its sessions.
 */
import type { Iface, NodeRecord, Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';

function nodeRecordLines(snap: Snapshot, r: NodeRecord): Line[] {
  const s = snap.sessions.find(
    (x) => x.targetIqn === r.targetIqn && x.portal === r.portal && x.iface === r.iface,
  );
  const auto = r.startup === 'automatic';
  const lines: Line[] = [
    { text: `Node record ${r.targetIqn}`, bold: true },
    { text: `  portal ${r.portal},${r.tpgt}   iface ${r.iface}` },
    {
      // iscsid.conf: node.startup = automatic logs the record in when iscsid starts (at boot).
      text: `  node.startup ${r.startup ?? '(not set)'}${auto ? ': iscsid logs it in at boot' : r.startup === 'manual' ? ': logged in only on request' : ''}`,
      tone: auto && !s ? 'warn' : undefined,
    },
    ...(r.scan ? [{ text: `  node.session.scan ${r.scan}`, tone: 'dim' as const }] : []),
    { text: `  CHAP ${r.chap ? 'set (values not shown)' : 'not set'}` },
    { text: `  file ${r.path}`, tone: 'dim' },
    { text: '' },
  ];
  if (s) {
    lines.push({ text: `Session ${s.sid}  ${s.state}  ${s.verdict}, ${s.health}`, tone: 'ok' });
    for (const reason of s.reasons.slice(0, 3)) lines.push({ text: `  • ${reason}`, tone: 'dim' });
  } else {
    lines.push({
      text: auto
        ? 'No session: it logs in again at the next boot or iscsid restart'
        : 'No session logged in with this record',
      tone: auto ? 'warn' : 'dim',
    });
  }
  const vols = snap.kubelet.volumes.filter(
    (v) => v.iqn === r.targetIqn && (v.portal === r.portal || (v.metadata?.Portals ?? []).includes(r.portal)),
  );
  const expected = (snap.expected?.volumes ?? []).filter(
    (v) =>
      v.iqn === r.targetIqn && v.expectedPortals.includes(r.portal) && !vols.some((k) => k.path === v.path),
  );
  lines.push({ text: '' }, { text: `Volumes that expect it (${vols.length + expected.length})`, bold: true });
  if (vols.length + expected.length === 0)
    lines.push({
      text: '  none: no kubelet volume or driver file names this target and portal',
      tone: 'dim',
    });
  for (const v of vols) lines.push({ text: `  kubelet ${v.path}` });
  for (const v of expected) lines.push({ text: `  ${v.driver} ${v.name} (${v.path})` });
  return lines;
}

function ifaceLines(snap: Snapshot, i: Iface): Line[] {
  const sessions = snap.sessions.filter((s) => s.iface === i.name);
  const lines: Line[] = [
    { text: `Iface ${i.name}`, bold: true },
    { text: `  transport ${i.transport ?? '-'}   initiator ${i.initiatorName ?? '(the node default)'}` },
    {
      text: `  ipaddress ${i.ipaddress ?? '-'}   netdev ${i.netdev ?? '-'}   hwaddress ${i.hwaddress ?? '-'}`,
    },
    { text: `  file ${i.path}`, tone: 'dim' },
    { text: '' },
    { text: `Sessions through it (${sessions.length})`, bold: true },
  ];
  if (sessions.length === 0) lines.push({ text: '  none', tone: 'dim' });
  for (const s of sessions)
    lines.push({ text: `  session ${s.sid}  ${s.targetIqn} @ ${s.portal}  ${s.state}` });
  return lines;
}

/** The detail of a Records row by its key (the record's or the iface's file path). */
export function recordDetailLines(snap: Snapshot, key: string): Line[] | undefined {
  const r = snap.nodeRecords.find((x) => x.path === key);
  if (r) return nodeRecordLines(snap, r);
  const i = snap.ifaces.find((x) => x.path === key);
  return i ? ifaceLines(snap, i) : undefined;
}
