import type { Host } from '../host/host.js';
import { parseRecord } from '../iscsiadm/record.js';

/**
 * Where open-iscsi keeps node records: the DBROOT is a build option (iscsiadm.8) — Debian/Ubuntu use
 * /etc/iscsi, RHEL/SUSE /var/lib/iscsi. Both are read; a node normally has one.
 */
export const NODE_DB_DIRS = ['/etc/iscsi/nodes', '/var/lib/iscsi/nodes'] as const;

/** One node record file, reduced to what the doctor needs (never any CHAP value). */
export interface NodeRecordFile {
  /** Host path of the record file. */
  path: string;
  targetIqn: string;
  /** `<address>,<port>[,<tpgt>]` as in the DB directory name. */
  portal: string;
  /** iface file name (new layout) or undefined (old flat layout). */
  iface?: string;
  startup?: string;
  replacementTimeout?: string;
  /** The file is empty: interrupted write; breaks discovery (Longhorn CleanupScsiNodes, docs/field-incidents.md#14-empty-node-record-files). */
  empty: boolean;
}

function readRecord(
  host: Host,
  path: string,
  targetIqn: string,
  portal: string,
  iface?: string,
): NodeRecordFile {
  const text = host.readText(path) ?? '';
  const kv = parseRecord(text);
  const rec: NodeRecordFile = { path, targetIqn, portal, empty: text.trim() === '' };
  if (iface !== undefined) rec.iface = iface;
  const startup = kv.get('node.startup');
  if (startup) rec.startup = startup;
  const tmo = kv.get('node.session.timeo.replacement_timeout');
  if (tmo) rec.replacementTimeout = tmo;
  return rec;
}

/**
 * Reads every node record file. Layouts (usr/idbm.c): `nodes/<iqn>/<addr>,<port>,<tpgt>/<iface>`
 * (current) and the older flat `nodes/<iqn>/<addr>,<port>` file.
 */
export function readNodeRecordFiles(host: Host): NodeRecordFile[] {
  const out: NodeRecordFile[] = [];
  for (const db of NODE_DB_DIRS) {
    for (const iqn of host.readDir(db).sort()) {
      const targetDir = `${db}/${iqn}`;
      if (host.stat(targetDir) !== 'dir') continue;
      for (const portal of host.readDir(targetDir).sort()) {
        const p = `${targetDir}/${portal}`;
        const kind = host.stat(p);
        if (kind === 'file') out.push(readRecord(host, p, iqn, portal));
        else if (kind === 'dir') {
          for (const iface of host.readDir(p).sort())
            out.push(readRecord(host, `${p}/${iface}`, iqn, portal, iface));
        }
      }
    }
  }
  return out;
}
