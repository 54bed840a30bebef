import { portalComma } from '../kernel/names.js';
import type { Tree } from '../tree.js';
import type { Portal } from '../types.js';
import { DISCOVERY_RECORD_TEMPLATE, IFACE_RECORD_TEMPLATE, NODE_RECORD_TEMPLATE } from './templates.js';

export const ISCSI_VERSION = '2.1.8';
export const EMPTY = '<empty>';
const DB = '/etc/iscsi';

/** A record: ordered `key = value` pairs as idbm prints them. */
type Record = Map<string, string>;

export interface NodeEntry {
  iqn: string;
  portal: Portal;
  tpgt: number;
  iface: string;
  rec: Record;
}

interface DiscoveryEntry {
  portal: Portal;
  rec: Record;
}

/** Keys whose values iscsiadm masks as ******** unless --show (usr/idbm.c). */
const SECRET_KEYS = /(^|\.)password(_in)?$/;

/** `# BEGIN RECORD 2.1.8` ... `# END RECORD`, secrets masked unless `show` (iscsiadm -S). */
export function renderRecord(rec: Record, show = false): string {
  let out = `# BEGIN RECORD ${ISCSI_VERSION}\n`;
  for (const [k, v] of rec) {
    const shown = SECRET_KEYS.test(k) && v !== EMPTY && !show ? '********' : v;
    out += `${k} = ${shown}\n`;
  }
  return `${out}# END RECORD\n`;
}

/** iscsid.conf defaults the simulated node was configured with (node.startup: automatic). */
interface IscsidConf {
  startup: string;
  replacementTimeout: number;
  scan: 'auto' | 'manual';
}

/**
 * The open-iscsi node database under /etc/iscsi (Debian's dbroot): node records at
 * `nodes/<iqn>/<addr>,<port>,<tpgt>/<iface>`, discovery records at `send_targets/<addr>,<port>/st_config`,
 * ifaces at `ifaces/<name>`, plus initiatorname.iscsi and iscsid.conf. Files hold real secrets (0600),
 * exactly like open-iscsi; only iscsiadm's output masks them.
 */
export class NodeDb {
  readonly nodes: NodeEntry[] = [];
  readonly discovery: DiscoveryEntry[] = [];
  readonly ifaces = new Map<string, Record>();
  /** Set when a record file was written from outside (the Host seam): reload() re-reads then. */
  dirty = false;

  constructor(
    private readonly tree: Tree,
    readonly initiatorName: string,
    readonly conf: IscsidConf,
  ) {}

  base(): void {
    this.tree.dir(`${DB}/nodes`);
    this.tree.dir(`${DB}/send_targets`);
    this.tree.dir(`${DB}/ifaces`);
    this.tree.file(
      `${DB}/initiatorname.iscsi`,
      `## DO NOT EDIT OR REMOVE THIS FILE!\nInitiatorName=${this.initiatorName}\n`,
      0o600,
    );
    this.tree.file(
      `${DB}/iscsid.conf`,
      `iscsid.startup = /bin/systemctl start iscsid.socket\nnode.startup = ${this.conf.startup}\nnode.session.timeo.replacement_timeout = ${this.conf.replacementTimeout}\nnode.session.scan = ${this.conf.scan}\n`,
      0o600,
    );
  }

  /**
   * Re-reads every known record from its file, as real iscsiadm reads the DB on each run
   * (usr/idbm.c idbm_recinfo_config): whoever edited a file (an admin, or the console writing CHAP
   * fields under the DB lock) is seen by the next iscsiadm. Lines are `name = value`, the value
   * trimmed; comments and lines without ` = ` are skipped; unknown names are kept.
   */
  reload(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const apply = (rec: Record, text: string | undefined) => {
      if (text === undefined) return;
      for (const line of text.split('\n')) {
        const t = line.trim();
        if (t === '' || t.startsWith('#')) continue;
        const m = /^([^\s=]+)\s*=\s*(.*)$/.exec(t);
        if (m && m[2] !== '') rec.set(m[1]!, m[2]!);
      }
    };
    for (const n of this.nodes) apply(n.rec, this.tree.read(this.nodePath(n)));
    for (const d of this.discovery)
      apply(d.rec, this.tree.read(`${DB}/send_targets/${portalComma(d.portal)}/st_config`));
  }

  /** idbm_lock's test: another writer holds `lock.write` (src/engine/iscsiadm/record-secrets.ts). */
  locked(): boolean {
    return this.tree.exists('/run/lock/iscsi/lock.write');
  }

  /** A fresh node record for a target/portal with iscsid.conf defaults. */
  newNode(iqn: string, portal: Portal, tpgt: number, iface: string, discoveredFrom?: Portal): NodeEntry {
    const rec: Record = new Map(NODE_RECORD_TEMPLATE.map(([k, v]) => [k, v]));
    rec.set('node.name', iqn);
    rec.set('node.tpgt', String(tpgt));
    rec.set('node.startup', this.conf.startup);
    rec.set('iface.iscsi_ifacename', iface);
    const ifaceRec = this.ifaces.get(iface);
    if (ifaceRec) for (const [k, v] of ifaceRec) if (k !== 'iface.iscsi_ifacename') rec.set(k, v);
    rec.set('node.discovery_address', discoveredFrom ? discoveredFrom.address : EMPTY);
    rec.set('node.discovery_port', discoveredFrom ? String(discoveredFrom.port) : '0');
    rec.set('node.discovery_type', discoveredFrom ? 'send_targets' : 'static');
    rec.set('node.session.timeo.replacement_timeout', String(this.conf.replacementTimeout));
    rec.set('node.session.scan', this.conf.scan);
    rec.set('node.conn[0].address', portal.address);
    rec.set('node.conn[0].port', String(portal.port));
    rec.set('node.conn[0].startup', 'manual');
    const e = { iqn, portal: { ...portal }, tpgt, iface, rec };
    const i = this.nodes.findIndex((n) => sameNode(n, e));
    if (i >= 0) this.nodes.splice(i, 1, e);
    else this.nodes.push(e);
    this.writeNode(e);
    return e;
  }

  /**
   * Where iscsiadm keeps the record: `<addr>,<port>,<tpgt>/<iface>`, or, for a record made by
   * `-m node -o new` without a tpgt, the old layout's single `<addr>,<port>` file (open-iscsi 2.1.8
   * usr/idbm.c idbm_rec_write drops down to it when the tpgt is unknown).
   */
  nodePath(n: NodeEntry): string {
    return n.tpgt < 0
      ? `${DB}/nodes/${n.iqn}/${portalComma(n.portal)}`
      : `${DB}/nodes/${n.iqn}/${portalComma(n.portal)},${n.tpgt}/${n.iface}`;
  }

  writeNode(n: NodeEntry): void {
    const dir = this.nodePath(n).slice(0, this.nodePath(n).lastIndexOf('/'));
    this.tree.dir(dir);
    this.tree.file(this.nodePath(n), renderRecord(n.rec, true), 0o600);
  }

  deleteNode(n: NodeEntry): void {
    this.nodes.splice(this.nodes.indexOf(n), 1);
    const path = this.nodePath(n);
    this.tree.remove(path);
    const dir = path.slice(0, path.lastIndexOf('/'));
    if (this.tree.list(dir).length === 0) this.tree.remove(dir);
    const tdir = `${DB}/nodes/${n.iqn}`;
    if (tdir !== dir && this.tree.list(tdir).length === 0) this.tree.remove(tdir);
  }

  /** Node records matching iscsiadm's -T/-p/-I filters, in `-m node` order (target, then portal). */
  matchNodes(f: { iqn?: string; portal?: Portal; iface?: string }): NodeEntry[] {
    return this.nodes
      .filter(
        (n) =>
          (f.iqn === undefined || n.iqn === f.iqn) &&
          (f.portal === undefined ||
            (n.portal.address === f.portal.address && n.portal.port === f.portal.port)) &&
          (f.iface === undefined || n.iface === f.iface),
      )
      .sort(
        (a, b) => a.iqn.localeCompare(b.iqn) || portalComma(a.portal).localeCompare(portalComma(b.portal)),
      );
  }

  findDiscovery(p: Portal): DiscoveryEntry | undefined {
    return this.discovery.find((d) => d.portal.address === p.address && d.portal.port === p.port);
  }

  newDiscovery(p: Portal): DiscoveryEntry {
    const existing = this.findDiscovery(p);
    if (existing) return existing;
    const rec: Record = new Map(DISCOVERY_RECORD_TEMPLATE.map(([k, v]) => [k, v]));
    rec.set('discovery.sendtargets.address', p.address);
    rec.set('discovery.sendtargets.port', String(p.port));
    const d = { portal: { ...p }, rec };
    // idbm lists discovery records newest first (discovery-list-2portals.txt).
    this.discovery.unshift(d);
    this.writeDiscovery(d);
    return d;
  }

  writeDiscovery(d: DiscoveryEntry): void {
    const dir = `${DB}/send_targets/${portalComma(d.portal)}`;
    this.tree.dir(dir);
    this.tree.file(`${dir}/st_config`, renderRecord(d.rec, true), 0o600);
  }

  deleteDiscovery(d: DiscoveryEntry): void {
    this.discovery.splice(this.discovery.indexOf(d), 1);
    this.tree.remove(`${DB}/send_targets/${portalComma(d.portal)}`);
  }

  /** The iface record (`default` and `iser` are built in, like usr/iface.c default_ifaces). */
  iface(name: string): Record | undefined {
    if (this.ifaces.has(name)) return this.ifaces.get(name);
    if (name !== 'default' && name !== 'iser') return undefined;
    const rec: Record = new Map(IFACE_RECORD_TEMPLATE.map(([k, v]) => [k, v]));
    rec.set('iface.iscsi_ifacename', name);
    rec.set('iface.transport_name', name === 'iser' ? 'iser' : 'tcp');
    return rec;
  }

  newIface(name: string): Record {
    const rec: Record = new Map(IFACE_RECORD_TEMPLATE.map(([k, v]) => [k, v]));
    rec.set('iface.iscsi_ifacename', name);
    this.ifaces.set(name, rec);
    this.writeIface(name);
    return rec;
  }

  writeIface(name: string): void {
    const rec = this.ifaces.get(name);
    if (rec) this.tree.file(`${DB}/ifaces/${name}`, renderRecord(rec, true), 0o600);
  }

  deleteIface(name: string): void {
    this.ifaces.delete(name);
    this.tree.remove(`${DB}/ifaces/${name}`);
  }
}

function sameNode(a: NodeEntry, b: NodeEntry): boolean {
  return (
    a.iqn === b.iqn &&
    a.portal.address === b.portal.address &&
    a.portal.port === b.portal.port &&
    a.tpgt === b.tpgt &&
    a.iface === b.iface
  );
}
