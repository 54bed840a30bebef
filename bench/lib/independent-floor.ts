import { readdirSync, readFileSync } from 'node:fs';
import { countRead, emptyKindCounts, type KindCounts, type ReadClass } from './read-kinds.js';

/**
 * The independent floor (bench/README.md): the least a reader must do to list what the snapshot
 * lists for iSCSI — each session (target, portal, state) → its connection → its LUNs → each LUN's
 * block device (state, dev, size) → the device-mapper maps holding it (name, uuid, members) → where
 * they are mounted, plus the iscsiadm node records — written from the kernel's sysfs layout
 * (docs/iscsiadm.md "Sysfs", linux drivers/scsi/scsi_transport_iscsi.c and scsi_sysfs.c) and
 * mountinfo's format (linux Documentation/filesystems/proc.rst), with bare synchronous `fs`.
 * It shares no code with the engine (no Host, no RootResolver, no parser of the engine's), so it is
 * not a replay of the snapshot's reads: a read the snapshot makes beyond these is work the floor
 * does not do, and shows in the ratio and in the per-kind counts.
 *
 * `root` is a directory standing for `/` (a fixture root, or `/` on a real node). Paths are read
 * as plain paths below it: the kernel follows sysfs's relative links, which stay inside the tree.
 */

export interface FloorLun {
  hctl: string;
  state: string;
  disk?: string;
  dev?: string;
  sizeSectors?: string;
  holders: string[];
}

export interface FloorSession {
  sid: number;
  target: string;
  state: string;
  tpgt: string;
  iface: string;
  portal: string;
  connectionState: string;
  luns: FloorLun[];
}

export interface FloorMap {
  name: string;
  alias: string;
  uuid: string;
  members: string[];
}

export interface FloorFacts {
  sessions: FloorSession[];
  maps: FloorMap[];
  /** maj:min → mount points, for the disks and maps above only. */
  mounts: Record<string, string[]>;
  /** iscsiadm node records: `<target>/<portal,tpgt>/<iface>` (docs/iscsiadm.md "Iface and node records"). */
  records: string[];
}

/** One floor read: reads counted by kind (bench/lib/read-kinds.ts) when `counts` is given. */
class Reader {
  constructor(
    private readonly root: string,
    readonly counts: KindCounts | undefined,
  ) {}

  private note(path: string, cls: ReadClass): void {
    if (this.counts) countRead(this.counts, path, cls);
  }

  /** A sysfs attribute's value without its newline; '' when absent or unreadable. */
  text(path: string): string {
    this.note(path, 'file');
    try {
      return readFileSync(this.root + path, 'utf8').trim();
    } catch {
      return '';
    }
  }

  list(path: string): string[] {
    this.note(path, 'dir');
    try {
      return readdirSync(this.root + path);
    } catch {
      return [];
    }
  }
}

const SESSION_CLASS = '/sys/class/iscsi_session';
const CONNECTION_CLASS = '/sys/class/iscsi_connection';
const HCTL = /^\d+:\d+:\d+:\d+$/;
const RECORD_DIRS = ['/etc/iscsi/nodes', '/var/lib/iscsi/nodes'];

/** Reads the facts once; `counts` (optional) receives every read by kind. */
export function readFloorFacts(root: string, counts?: KindCounts): FloorFacts {
  const r = new Reader(root === '/' ? '' : root.replace(/\/+$/, ''), counts);
  const holderNames = new Set<string>();
  const sessions: FloorSession[] = [];
  for (const name of r.list(SESSION_CLASS)) {
    if (!name.startsWith('session')) continue;
    const s = readSession(r, name);
    for (const l of s.luns) for (const h of l.holders) holderNames.add(h);
    sessions.push(s);
  }
  const maps: FloorMap[] = [];
  for (const dm of holderNames) {
    if (!dm.startsWith('dm-')) continue;
    const base = `/sys/block/${dm}`;
    maps.push({
      name: dm,
      alias: r.text(`${base}/dm/name`),
      uuid: r.text(`${base}/dm/uuid`),
      members: r.list(`${base}/slaves`),
    });
  }
  const wanted = new Set<string>();
  for (const s of sessions) for (const l of s.luns) if (l.dev) wanted.add(l.dev);
  for (const m of maps) wanted.add(r.text(`/sys/block/${m.name}/dev`));
  return { sessions, maps, mounts: mountsOf(r.text('/proc/1/mountinfo'), wanted), records: records(r) };
}

function readSession(r: Reader, name: string): FloorSession {
  const base = `${SESSION_CLASS}/${name}`;
  const sid = Number(name.slice('session'.length));
  // The session's device dir (…/host<H>/session<M>) holds its connection and its SCSI target dirs.
  const dev = `${base}/device`;
  const entries = r.list(dev);
  const conn = entries.find((e) => e.startsWith('connection'));
  const cbase = conn ? `${CONNECTION_CLASS}/${conn}` : undefined;
  const luns: FloorLun[] = [];
  for (const t of entries) {
    if (!t.startsWith('target')) continue;
    for (const hctl of r.list(`${dev}/${t}`)) {
      if (HCTL.test(hctl)) luns.push(readLun(r, `${dev}/${t}/${hctl}`, hctl));
    }
  }
  return {
    sid,
    target: r.text(`${base}/targetname`),
    state: r.text(`${base}/state`),
    tpgt: r.text(`${base}/tpgt`),
    iface: r.text(`${base}/ifacename`),
    portal: cbase ? `${r.text(`${cbase}/persistent_address`)}:${r.text(`${cbase}/persistent_port`)}` : '',
    connectionState: cbase ? r.text(`${cbase}/state`) : '',
    luns,
  };
}

function readLun(r: Reader, dir: string, hctl: string): FloorLun {
  const lun: FloorLun = { hctl, state: r.text(`${dir}/state`), holders: [] };
  // A LUN with a block device has one entry under block/ (a controller LUN 0 has none).
  const disk = r.list(`${dir}/block`)[0];
  if (disk) {
    const b = `/sys/block/${disk}`;
    lun.disk = disk;
    lun.dev = r.text(`${b}/dev`);
    lun.sizeSectors = r.text(`${b}/size`);
    lun.holders = r.list(`${b}/holders`);
  }
  return lun;
}

/** mountinfo: field 3 is maj:min, field 5 the mount point (octal escapes for space, tab, newline, \). */
function mountsOf(text: string, wanted: ReadonlySet<string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const mm = f[2];
    if (!mm || !wanted.has(mm) || f[4] === undefined) continue;
    const point = f[4].replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
    const list = out[mm];
    if (list) list.push(point);
    else out[mm] = [point];
  }
  return out;
}

function records(r: Reader): string[] {
  const out: string[] = [];
  for (const dir of RECORD_DIRS) {
    for (const target of r.list(dir)) {
      for (const portal of r.list(`${dir}/${target}`)) {
        // A portal entry is a dir of iface files (open-iscsi ≥ 2.0-871) or one old-style file.
        const ifaces = r.list(`${dir}/${target}/${portal}`);
        for (const i of ifaces.length ? ifaces : ['default']) out.push(`${target}/${portal}/${i}`);
      }
    }
  }
  return out;
}

/** Counts for a floor that was not asked to count. */
export function floorReadCounts(root: string): KindCounts {
  const counts = emptyKindCounts();
  readFloorFacts(root, counts);
  return counts;
}
