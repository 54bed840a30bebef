import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { countRead, emptyKindCounts, type KindCounts, type ReadClass } from './read-kinds.js';

/**
 * The independent floor (bench/README.md): the least a reader must do to read the facts
 * `status --json` reports — each session (target, portal, state, initiator name, recovery_tmo, its
 * SCSI host's state and address) → its connection (persistent and current address and port, state)
 * → its LUNs (state, vendor, model, rev, type, wwid) → each LUN's block device (dev, size,
 * partitions, filesystem from udev's database, holders) → the device-mapper maps holding it (name,
 * uuid, dev, size, members, holders) → where they are mounted and whether they are swap, the
 * by-path links, the iscsiadm node records and ifaces, the node's initiator name and hostname, and
 * kubelet's view (its iSCSI global dirs and their iscsi.json, pods' iSCSI and CSI volume dirs, the
 * CSI plugin dir) — written from the kernel's sysfs layout
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
  /** vendor, model, rev, type, wwid: the SCSI device's identity as status --json shows it. */
  ident: string[];
  disk?: string;
  dev?: string;
  sizeSectors?: string;
  partitions: string[];
  /** udev's database entry of the disk (ID_FS_TYPE and the like), as text. */
  udev?: string;
  holders: string[];
}

export interface FloorSession {
  sid: number;
  target: string;
  state: string;
  tpgt: string;
  iface: string;
  portal: string;
  /** initiatorname, recovery_tmo, then the session's and its connection's negotiated params. */
  attrs: string[];
  host: string;
  /** The SCSI host's state and the iSCSI host's ipaddress and netdev (status --json `netdev`). */
  hostAttrs: string[];
  /** The connection's current address and port. */
  current: string;
  connectionState: string;
  luns: FloorLun[];
}

export interface FloorMap {
  name: string;
  alias: string;
  uuid: string;
  dev: string;
  sizeSectors: string;
  members: string[];
  holders: string[];
  /** dm/suspended (status --json reports a suspended map). */
  suspended: string;
  /** udev's database entry of the map. */
  udev: string;
}

export interface FloorFacts {
  sessions: FloorSession[];
  maps: FloorMap[];
  /** maj:min → mount points, for the disks and maps above only. */
  mounts: Record<string, string[]>;
  /** iscsiadm node records: `<target>/<portal,tpgt>/<iface>` (docs/iscsiadm.md "Iface and node records"). */
  records: string[];
  ifaces: string[];
  node: { hostname: string; initiatorName: string };
  swaps: string;
  byPath: string[];
  kubelet: FloorKubelet;
}

export interface FloorKubelet {
  /** The in-tree plugin's global dirs (iface-NAME/PORTAL-IQN-lun-N) and their iscsi.json when unmounted. */
  globalDirs: Record<string, string>;
  /** pod UID → its iSCSI and CSI volume dir names and block volume devices. */
  pods: Record<string, string[]>;
  csiDrivers: string[];
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

  link(path: string): string {
    this.note(path, 'meta');
    try {
      return readlinkSync(this.root + path);
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

/**
 * The negotiated login keys and error-handling timeouts `status --json` reports as a session's and a
 * connection's `params` when sysfs has them (linux drivers/scsi/scsi_transport_iscsi.c,
 * iscsi_session_attr / iscsi_conn_attr; the ones `iscsiadm -m session -P 3` prints).
 */
const SESSION_PARAMS = (
  'first_burst_len max_burst_len immediate_data initial_r2t max_outstanding_r2t data_pdu_in_order ' +
  'data_seq_in_order erl tgt_reset_tmo lu_reset_tmo abort_tmo'
).split(' ');
const CONNECTION_PARAMS = ['header_digest', 'data_digest', 'max_recv_dlength', 'max_xmit_dlength'];

const SESSION_CLASS = '/sys/class/iscsi_session';
const CONNECTION_CLASS = '/sys/class/iscsi_connection';
const HCTL = /^\d+:\d+:\d+:\d+$/;
const RECORD_DIRS = ['/etc/iscsi/nodes', '/var/lib/iscsi/nodes'];

/** Reads the facts once; `counts` (optional) receives every read by kind. */
export function readFloorFacts(root: string, counts?: KindCounts): FloorFacts {
  const r = new Reader(root === '/' ? '' : root.replace(/\/+$/, ''), counts);
  const holderNames = new Set<string>();
  const sessions: FloorSession[] = [];
  // Partitions: one listing of the block class; a partition is <disk><N> or <disk>p<N>.
  const partitions = new Map<string, string[]>();
  for (const e of r.list('/sys/class/block')) {
    if (e.startsWith('dm-') || e.startsWith('loop') || !/\d$/.test(e)) continue;
    const disk = e.replace(/p?\d+$/, '');
    partitions.set(disk, [...(partitions.get(disk) ?? []), e]);
  }
  for (const name of r.list(SESSION_CLASS)) {
    if (!name.startsWith('session')) continue;
    const s = readSession(r, name, partitions);
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
      dev: r.text(`${base}/dev`),
      sizeSectors: r.text(`${base}/size`),
      members: r.list(`${base}/slaves`),
      holders: r.list(`${base}/holders`),
      suspended: r.text(`${base}/dm/suspended`),
      udev: '',
    });
  }
  const wanted = new Set<string>();
  for (const s of sessions) for (const l of s.luns) if (l.dev) wanted.add(l.dev);
  for (const m of maps) {
    wanted.add(m.dev);
    m.udev = r.text(`/run/udev/data/b${m.dev}`);
  }
  const mountinfo = r.text('/proc/1/mountinfo');
  return {
    sessions,
    maps,
    mounts: mountsOf(mountinfo, wanted),
    records: records(r),
    ifaces: [...r.list('/etc/iscsi/ifaces'), ...r.list('/var/lib/iscsi/ifaces')],
    node: { hostname: r.text('/etc/hostname'), initiatorName: r.text('/etc/iscsi/initiatorname.iscsi') },
    swaps: r.text('/proc/swaps'),
    byPath: r.list('/dev/disk/by-path'),
    kubelet: kubelet(r, mountinfo),
  };
}

const KUBELET = '/var/lib/kubelet';
const ISCSI_PLUGIN = `${KUBELET}/plugins/kubernetes.io/iscsi`;

/**
 * kubelet's side (kubernetes pkg/volume/iscsi/iscsi_util.go, disk_manager.go; pkg/volume/csi): the
 * in-tree plugin's global dirs name portal, IQN and LUN; a dir that is not a mount point is
 * identified by its iscsi.json instead. Each pod's volume dirs say which volumes it uses.
 */
function kubelet(r: Reader, mountinfo: string): FloorKubelet {
  const globalDirs: Record<string, string> = {};
  for (const iface of r.list(ISCSI_PLUGIN)) {
    if (!iface.startsWith('iface-')) continue;
    for (const d of r.list(`${ISCSI_PLUGIN}/${iface}`)) {
      const dir = `${ISCSI_PLUGIN}/${iface}/${d}`;
      globalDirs[dir] = mountinfo.includes(` ${dir} `) ? '' : r.text(`${dir}/iscsi.json`);
    }
  }
  const pods: Record<string, string[]> = {};
  for (const uid of r.list(`${KUBELET}/pods`)) {
    const base = `${KUBELET}/pods/${uid}`;
    pods[uid] = [
      ...r.list(`${base}/volumes/kubernetes.io~iscsi`),
      ...r.list(`${base}/volumes/kubernetes.io~csi`),
      ...r.list(`${base}/volumeDevices/kubernetes.io~iscsi`),
    ];
  }
  return { globalDirs, pods, csiDrivers: r.list(`${KUBELET}/plugins/kubernetes.io/csi`) };
}

function readSession(r: Reader, name: string, partitions: ReadonlyMap<string, string[]>): FloorSession {
  const base = `${SESSION_CLASS}/${name}`;
  const sid = Number(name.slice('session'.length));
  // The session's device dir (…/host<H>/session<M>) holds its connection and its SCSI target dirs.
  const dev = `${base}/device`;
  const entries = r.list(dev);
  const conn = entries.find((e) => e.startsWith('connection'));
  const cbase = conn ? `${CONNECTION_CLASS}/${conn}` : undefined;
  // The class entry links to …/host<H>/session<M>/iscsi_session/session<M>: the SCSI host's number.
  const host = /\/(host\d+)\/session\d+\//.exec(r.link(base))?.[1] ?? '';
  const luns: FloorLun[] = [];
  for (const t of entries) {
    if (!t.startsWith('target')) continue;
    for (const hctl of r.list(`${dev}/${t}`)) {
      if (HCTL.test(hctl)) luns.push(readLun(r, `${dev}/${t}/${hctl}`, hctl, partitions));
    }
  }
  return {
    sid,
    target: r.text(`${base}/targetname`),
    state: r.text(`${base}/state`),
    tpgt: r.text(`${base}/tpgt`),
    iface: r.text(`${base}/ifacename`),
    portal: cbase ? `${r.text(`${cbase}/persistent_address`)}:${r.text(`${cbase}/persistent_port`)}` : '',
    attrs: [
      r.text(`${base}/initiatorname`),
      r.text(`${base}/recovery_tmo`),
      ...SESSION_PARAMS.map((a) => r.text(`${base}/${a}`)),
      ...(cbase ? CONNECTION_PARAMS.map((a) => r.text(`${cbase}/${a}`)) : []),
    ],
    host,
    hostAttrs: host
      ? [
          r.text(`/sys/class/scsi_host/${host}/state`),
          r.text(`/sys/class/iscsi_host/${host}/ipaddress`),
          r.text(`/sys/class/iscsi_host/${host}/netdev`),
        ]
      : [],
    current: cbase ? `${r.text(`${cbase}/address`)}:${r.text(`${cbase}/port`)}` : '',
    connectionState: cbase ? r.text(`${cbase}/state`) : '',
    luns,
  };
}

function readLun(r: Reader, dir: string, hctl: string, partitions: ReadonlyMap<string, string[]>): FloorLun {
  const lun: FloorLun = {
    hctl,
    state: r.text(`${dir}/state`),
    ident: ['vendor', 'model', 'rev', 'type', 'wwid'].map((a) => r.text(`${dir}/${a}`)),
    partitions: [],
    holders: [],
  };
  // A LUN with a block device has one entry under block/ (a controller LUN 0 has none).
  const disk = r.list(`${dir}/block`)[0];
  if (disk) {
    const b = `/sys/block/${disk}`;
    lun.disk = disk;
    lun.dev = r.text(`${b}/dev`);
    lun.sizeSectors = r.text(`${b}/size`);
    lun.partitions = partitions.get(disk) ?? [];
    lun.udev = r.text(`/run/udev/data/b${lun.dev}`);
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
