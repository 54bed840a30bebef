import type { Host } from '../host/host.js';
import { formatPortal } from '../iscsi/portal.js';
import type { Iface, NodeRecord } from '../model.js';

/** open-iscsi's DB roots, newest layout first (Debian/RHEL use /etc/iscsi; old builds /var/lib/iscsi). */
export const ISCSI_DB_ROOTS = ['/etc/iscsi', '/var/lib/iscsi'] as const;
/** The node DB's record dirs (usr/idbm.h NODE_CONFIG_DIR, ST_CONFIG_DIR, IFACE_CONFIG_DIR): all a record write may change. */
export const NODE_DB_DIRS: readonly string[] = ISCSI_DB_ROOTS.flatMap((r) => [
  `${r}/nodes`,
  `${r}/send_targets`,
  `${r}/ifaces`,
]);
const INITIATOR_NAME_PATH = '/etc/iscsi/initiatorname.iscsi';

/** Record keys the snapshot keeps. CHAP usernames/passwords are never even looked at. */
const KEPT = new Set([
  'node.name',
  'node.tpgt',
  'node.startup',
  'node.session.scan',
  'node.session.auth.authmethod',
  'iface.iscsi_ifacename',
  'iface.transport_name',
  'iface.initiatorname',
  'iface.hwaddress',
  'iface.ipaddress',
  'iface.net_ifacename',
]);

/**
 * Parses `key = value` record text (what `iscsiadm -m node -o show` prints and the DB files hold;
 * captures node-show.txt). Keeps only whitelisted keys; `<empty>` reads as absent.
 */
export function parseRecord(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const eq = line.indexOf(' = ');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim();
    if (!KEPT.has(key)) continue;
    const value = line.slice(eq + 3).trim();
    if (value !== '' && value !== '<empty>') out.set(key, value);
  }
  return out;
}

/** Splits a node DB portal entry `<addr>,<port>[,<tpgt>]` (IPv6 unbracketed: split from the right). */
export function parsePortalEntry(
  entry: string,
): { address: string; port: number; tpgt?: number } | undefined {
  // Addresses hold no commas, so the entry has exactly two or three comma-separated parts.
  const m = /^([^,]+),(\d+)(?:,(-?\d+))?$/.exec(entry);
  if (!m) return undefined;
  const out: { address: string; port: number; tpgt?: number } = { address: m[1]!, port: Number(m[2]) };
  if (m[3] !== undefined) out.tpgt = Number(m[3]);
  return out;
}

function toNodeRecord(
  iqn: string,
  entry: { address: string; port: number; tpgt?: number },
  fields: Map<string, string>,
  ifaceFallback: string,
  path: string,
): NodeRecord {
  const rec: NodeRecord = {
    targetIqn: fields.get('node.name') ?? iqn,
    portal: formatPortal(entry.address, entry.port),
    tpgt: entry.tpgt ?? Number(fields.get('node.tpgt') ?? -1),
    iface: fields.get('iface.iscsi_ifacename') ?? ifaceFallback,
    chap: /^chap$/i.test(fields.get('node.session.auth.authmethod') ?? ''),
    path,
  };
  const startup = fields.get('node.startup');
  if (startup) rec.startup = startup;
  const scan = fields.get('node.session.scan');
  if (scan) rec.scan = scan;
  return rec;
}

/** The DB root in use: the first whose `nodes` or `ifaces` dir has entries, else /etc/iscsi. */
export function findIscsiDbRoot(host: Host): string {
  for (const r of ISCSI_DB_ROOTS) {
    if (host.readDir(`${r}/nodes`).length > 0 || host.readDir(`${r}/ifaces`).length > 0) return r;
  }
  return ISCSI_DB_ROOTS[0];
}

/** One node record file of open-iscsi's DB, as listed (its text unparsed). */
interface NodeRecordFile {
  /** Host path of the record file. */
  path: string;
  /** The target's directory name. */
  iqn: string;
  /** The portal entry's directory (or, old layout, file) name: `<addr>,<port>[,<tpgt>]`. */
  portalEntry: string;
  entry: { address: string; port: number; tpgt?: number };
  /** The iface file name (current layout); undefined in the old flat layout. */
  iface?: string;
  text: string;
}

/**
 * The one listing of node record files, which the snapshot and the doctor both read: `<db>/nodes/<iqn>/
 * <addr>,<port>,<tpgt>/<iface>` (current layout), tolerating the older one where `<addr>,<port>[,<tpgt>]`
 * is itself the record file. Entries that are not portal entries and unreadable files go to `problems`.
 */
export function readNodeRecordFiles(host: Host, dbRoot: string, problems: string[]): NodeRecordFile[] {
  const out: NodeRecordFile[] = [];
  const nodes = `${dbRoot}/nodes`;
  for (const iqn of host.readDir(nodes)) {
    for (const pe of host.readDir(`${nodes}/${iqn}`)) {
      const entry = parsePortalEntry(pe);
      const p = `${nodes}/${iqn}/${pe}`;
      if (!entry) {
        problems.push(`${p}: not an <address>,<port>,<tpgt> node record entry`);
        continue;
      }
      const ifaces = host.readDir(p);
      if (ifaces.length > 0) {
        for (const iface of ifaces) {
          const text = host.readText(`${p}/${iface}`);
          if (text === undefined) problems.push(`${p}/${iface}: unreadable node record`);
          else out.push({ path: `${p}/${iface}`, iqn, portalEntry: pe, entry, iface, text });
        }
      } else {
        // The old layout (open-iscsi 2.1.x still writes it for `-m node -o new` without a tpgt,
        // usr/idbm.c idbm_rec_write): one file per portal, its iface named inside.
        const text = host.readText(p);
        if (text !== undefined) out.push({ path: p, iqn, portalEntry: pe, entry, text });
      }
    }
  }
  return out;
}

/** Node records of the DB in use, as the snapshot reports them (readNodeRecordFiles, parsed). */
export function readNodeRecords(host: Host, dbRoot: string, problems: string[]): NodeRecord[] {
  return readNodeRecordFiles(host, dbRoot, problems).map((f) => {
    const fields = parseRecord(f.text);
    return toNodeRecord(
      f.iqn,
      f.entry,
      fields,
      f.iface ?? fields.get('iface.iscsi_ifacename') ?? 'default',
      f.path,
    );
  });
}

/** Reads `<db>/ifaces/<name>` files (built-in `default`/`iser` have no file and are not listed). */
export function readIfaces(host: Host, dbRoot: string): Iface[] {
  const out: Iface[] = [];
  for (const name of host.readDir(`${dbRoot}/ifaces`)) {
    const path = `${dbRoot}/ifaces/${name}`;
    const text = host.readText(path);
    if (text === undefined) continue;
    const f = parseRecord(text);
    const iface: Iface = { name: f.get('iface.iscsi_ifacename') ?? name, path };
    const set = (k: keyof Iface, key: string) => {
      const v = f.get(key);
      if (v !== undefined) (iface as unknown as Record<string, string>)[k] = v;
    };
    set('transport', 'iface.transport_name');
    set('initiatorName', 'iface.initiatorname');
    set('hwaddress', 'iface.hwaddress');
    set('ipaddress', 'iface.ipaddress');
    set('netdev', 'iface.net_ifacename');
    out.push(iface);
  }
  return out;
}

/** `InitiatorName=...` from /etc/iscsi/initiatorname.iscsi (comments and blank lines ignored). */
function parseInitiatorName(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const m = /^\s*InitiatorName\s*=\s*(\S+)\s*$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** Reads the node's initiator name, or undefined when the file is absent. */
export function readInitiatorName(host: Host): string | undefined {
  const text = host.readText(INITIATOR_NAME_PATH);
  return text === undefined ? undefined : parseInitiatorName(text);
}
