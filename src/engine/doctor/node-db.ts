import type { Host } from '../host/host.js';
import { parseRecord } from '../iscsiadm/record.js';
import { findIscsiDbRoot, readNodeRecordFiles } from '../snapshot/iscsi-db.js';

/** One node record file, reduced to what the doctor needs (never any CHAP value). */
interface DoctorNodeRecord {
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

/**
 * The node records the doctor judges: the very files `status` reports (the snapshot's one listing,
 * snapshot/iscsi-db.ts, of the DB root in use), with the settings the checks look at.
 */
export function readDoctorNodeRecords(host: Host): DoctorNodeRecord[] {
  return readNodeRecordFiles(host, findIscsiDbRoot(host), []).map((f) => {
    const kv = parseRecord(f.text);
    const rec: DoctorNodeRecord = {
      path: f.path,
      targetIqn: f.iqn,
      portal: f.portalEntry,
      empty: f.text.trim() === '',
    };
    if (f.iface !== undefined) rec.iface = f.iface;
    const startup = kv.get('node.startup');
    if (startup) rec.startup = startup;
    const tmo = kv.get('node.session.timeo.replacement_timeout');
    if (tmo) rec.replacementTimeout = tmo;
    return rec;
  });
}
