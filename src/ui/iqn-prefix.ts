/**
 * The common IQN prefix of a node, shown once and elided in tables: a node's targets usually share
 * their naming authority (`iqn.2026-01.lab.example:`), and at 80 columns that prefix is all a TARGET
 * cell would show. Only a whole authority (up to and including the `:`, RFC 3720 iSCSI names) is
 * elided, and only when every IQN has the same one; `eui.`/`naa.` names are never shortened.
 * Plans never use this: the admin reads the exact argv there (src/ui/dialogs/plan-lines.ts).
 */
import type { Snapshot } from '../engine/model.js';

/** The naming authority of an IQN with its `:` (`iqn.2026-01.lab.example:`), or undefined. */
function authorityOf(iqn: string): string | undefined {
  if (!iqn.startsWith('iqn.')) return undefined;
  const i = iqn.indexOf(':');
  return i > 4 ? iqn.slice(0, i + 1) : undefined;
}

/** The authority every IQN shares, '' when they differ, a name is not an IQN, or there is none. */
export function commonIqnPrefix(iqns: Iterable<string>): string {
  let prefix: string | undefined;
  for (const iqn of iqns) {
    if (iqn === '') continue;
    const a = authorityOf(iqn);
    if (a === undefined || (prefix !== undefined && a !== prefix)) return '';
    prefix = a;
  }
  return prefix ?? '';
}

/** `…:old-logs` for `iqn.2026-01.lab.example:old-logs` under that prefix; other names as they are. */
export function elideIqn(iqn: string, prefix: string): string {
  if (prefix === '' || !iqn.startsWith(prefix) || iqn.length === prefix.length) return iqn;
  return `…${iqn.slice(prefix.length - 1)}`;
}

/**
 * A kubelet global dir as a table cell: its dir name (`<portal>-<iqn>-lun-<n>`, kubelet's
 * MakeGlobalPDName) with the IQN prefix elided, led by the iface when it is not `default`:
 * `10.0.0.10:3260-…:kafka-data-lun-1`. At 80 columns the path below the kubelet root is all
 * `plugins/kubernetes.io/iscsi/…`, and rows read alike; the dir name is what tells them apart.
 */
export function volumeDirLabel(path: string, prefix: string): string {
  const parts = path.split('/');
  const name = parts[parts.length - 1] ?? path;
  const parent = parts[parts.length - 2] ?? '';
  const short = prefix !== '' && name.includes(`-${prefix}`) ? name.replace(`-${prefix}`, '-…:') : name;
  return parent.startsWith('iface-') && parent !== 'iface-default' ? `${parent.slice(6)}/${short}` : short;
}

const cache = new WeakMap<Snapshot, string>();

/** The node's prefix over its sessions, node records and kubelet volumes, once per snapshot. */
export function nodeIqnPrefix(snap: Snapshot): string {
  let p = cache.get(snap);
  if (p === undefined) {
    p = commonIqnPrefix(
      (function* () {
        for (const s of snap.sessions) yield s.targetIqn;
        for (const r of snap.nodeRecords) yield r.targetIqn;
        for (const v of snap.kubelet.volumes) yield v.iqn;
      })(),
    );
    cache.set(snap, p);
  }
  return p;
}
