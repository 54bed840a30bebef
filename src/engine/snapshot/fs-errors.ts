/**
 * Filesystems on iSCSI disks the kernel stopped after an I/O error (democratic-csi#193,
 * synology-csi#101, trident#961: every pod on it fails its writes while the session looks healthy).
 *
 * Not from mountinfo alone: ext4 no longer sets SB_RDONLY when it handles an error (fs/ext4/super.c
 * ext4_handle_error, backported to 6.1 stable), so on 6.1 mountinfo still reads `rw` after the
 * kernel logged "Remounting filesystem read-only". Three sources, each bounded and only where
 * readable:
 * - ext4's record in sysfs, `/sys/fs/ext4/<dev>/errors_count`, `first_error_time`,
 *   `last_error_time` (seconds since the epoch, 0 = never) and `last_error_func` (fs/ext4/sysfs.c).
 *   It survives remounts (the superblock keeps it until fsck): history unless something says now.
 * - the kernel log (`/dev/kmsg` through the Host, non-blocking): ext4's "EXT4-fs (<dev>): Remounting
 *   filesystem read-only" and XFS's "XFS (<dev>): ... shut down" / "Shutting down filesystem", each
 *   counted only when it comes after that device's last "mounted filesystem" / "Mounting" line.
 * - mountinfo's superblock options `ro` under a mount that says `rw` (older kernels).
 */
import type { Host } from '../host/host.js';
import type { FsError, Mount, MultipathMap, PodName, Session } from '../model.js';
import { isoTime } from '../text/time.js';
import { readAttr } from './attr.js';

/** Kernel log records read at most (the newest; the default ring buffer holds far fewer lines). */
const KMSG_MAX_RECORDS = 20_000;

interface LogEvent {
  kind: 'mount' | 'stop';
  line: string;
  usec: number;
}

const STOP = [
  /^EXT4-fs \(([^)\s]+)\): Remounting filesystem read-only/,
  /^XFS \(([^)\s]+)\): .*(?:[Ss]hut down|[Ss]hutting down filesystem)/,
];
const MOUNT = [/^EXT4-fs \(([^)\s]+)\): mounted filesystem/, /^XFS \(([^)\s]+)\): Mounting V/];

/** The last mount-or-stop event per device from `/dev/kmsg` records (`pri,seq,usec,flags;message`). */
export function kernelLogEvents(records: readonly string[]): Map<string, LogEvent> {
  const last = new Map<string, LogEvent>();
  for (const r of records) {
    const semi = r.indexOf(';');
    if (semi < 0) continue;
    const usec = Number(r.slice(0, semi).split(',')[2]);
    const msg = r.slice(semi + 1);
    for (const [kind, res] of [
      ['stop', STOP],
      ['mount', MOUNT],
    ] as const) {
      for (const re of res) {
        const m = re.exec(msg);
        if (m) last.set(m[1]!, { kind, line: msg.slice(0, 200), usec: Number.isFinite(usec) ? usec : 0 });
      }
    }
  }
  return last;
}

/** Boot time (ms since the epoch) from /proc/stat's `btime`, to date a kernel log record. */
function bootTimeMs(host: Host): number | undefined {
  const m = /^btime (\d+)$/m.exec(host.readText('/proc/stat') ?? '');
  return m ? Number(m[1]) * 1000 : undefined;
}

/** An ext4 `*_error_time` attribute (seconds since the epoch; 0 or unreadable: none) as ISO. */
function epochAttr(host: Host, path: string): string | undefined {
  const v = Number(readAttr(host, path));
  return Number.isFinite(v) && v > 0 ? isoTime(v * 1000) : undefined;
}

interface FsErrorsInput {
  host: Host;
  kubeletRoot: string;
  mounts: readonly Mount[];
  sessions: readonly Session[];
  multipath: readonly MultipathMap[];
  pods?: Readonly<Record<string, PodName>>;
  /** Read the kernel log (a live node): false for a `--root` tree, whose log is not the node's now. */
  kernelLog: boolean;
}

/** iSCSI block devices by `major:minor`: every session's sd disks and the multipath maps over them. */
function iscsiDevices(sessions: readonly Session[], maps: readonly MultipathMap[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of sessions) for (const d of s.devices) if (d.name && d.majMin) out.set(d.majMin, d.name);
  for (const m of maps) if (m.majMin) out.set(m.majMin, m.name);
  return out;
}

/** PV and pod of a kubelet mount path (`pods/<uid>/volumes/<plugin>/<pv>[/mount]`, CSI `csi/pv/<pv>/globalmount`). */
function kubeletOwner(root: string, path: string): { pv?: string; pod?: string } {
  const rel = path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
  if (!rel) return {};
  const pod = /^pods\/([^/]+)\/volumes\/[^/]+\/([^/]+)/.exec(rel);
  if (pod) return { pod: pod[1]!, pv: pod[2]! };
  const csi = /^plugins\/kubernetes\.io\/csi\/(?:pv\/)?([^/]+)\/globalmount$/.exec(rel);
  // The in-tree global dir is named portal-iqn-lun, not after the PV: the pod's path names it.
  return csi ? { pv: csi[1]! } : {};
}

const podLabel = (uid: string, pods?: Readonly<Record<string, PodName>>) => {
  const p = pods?.[uid];
  return p ? (p.namespace ? `${p.namespace}/${p.name}` : p.name) : uid;
};

/** Every mounted filesystem on an iSCSI device with a kernel-reported error; [] when none. */
export function readFsErrors(i: FsErrorsInput): FsError[] {
  const devs = iscsiDevices(i.sessions, i.multipath);
  const byDevice = new Map<string, Mount[]>();
  for (const m of i.mounts) {
    const name = devs.get(m.majMin);
    if (!name) continue;
    const l = byDevice.get(name);
    if (l) l.push(m);
    else byDevice.set(name, [m]);
  }
  if (byDevice.size === 0) return [];
  const records = i.kernelLog ? (i.host.readKernelLog?.(KMSG_MAX_RECORDS) ?? []) : [];
  const events = kernelLogEvents(records);
  const boot = records.length > 0 ? bootTimeMs(i.host) : undefined;
  const out: FsError[] = [];
  for (const [device, mounts] of byDevice) {
    const fsType = mounts[0]!.fsType;
    const dir = `/sys/fs/ext4/${device}`;
    const count = fsType === 'ext4' ? Number(readAttr(i.host, `${dir}/errors_count`)) : Number.NaN;
    const ev = events.get(device);
    const stopped = ev?.kind === 'stop' ? ev : undefined;
    const superRo = mounts.some(
      (m) => m.options.split(',').includes('rw') && m.superOptions.split(',').includes('ro'),
    );
    const errors = Number.isFinite(count) && count > 0;
    if (!stopped && !superRo && !errors) continue;
    const volumes = new Set<string>();
    const pods = new Set<string>();
    for (const m of mounts) {
      const o = kubeletOwner(i.kubeletRoot, m.mountPoint);
      if (o.pv) volumes.add(o.pv);
      if (o.pod) pods.add(podLabel(o.pod, i.pods));
    }
    const e: FsError = {
      device,
      fsType,
      state: stopped || superRo ? 'failing' : 'on-record',
      mountPoints: mounts.map((m) => m.mountPoint),
      volumes: [...volumes].sort(),
      pods: [...pods].sort(),
      superblockReadOnly: superRo,
      summary: '',
    };
    if (errors) {
      e.errorsCount = count;
      const first = epochAttr(i.host, `${dir}/first_error_time`);
      const last = epochAttr(i.host, `${dir}/last_error_time`);
      const func = readAttr(i.host, `${dir}/last_error_func`);
      if (first) e.firstErrorAt = first;
      if (last) e.lastErrorAt = last;
      if (func) e.lastErrorFunc = func.slice(0, 64);
    }
    if (stopped)
      e.kernelLog = {
        line: stopped.line,
        ...(boot !== undefined ? { at: isoTime(boot + stopped.usec / 1000) } : {}),
      };
    e.summary = fsErrorSummary(e);
    out.push(e);
  }
  return out.sort((a, b) => a.device.localeCompare(b.device));
}

/** The problem's words (see FsError.summary). */
function fsErrorSummary(e: Omit<FsError, 'summary'>): string {
  const who = [...e.volumes, ...e.pods.map((p) => `pod ${p}`)].join(', ');
  const on = `filesystem on ${e.device}${who ? ` (${who})` : ''}`;
  if (e.state === 'failing') return `${on} stopped by the kernel after an I/O error: writes fail`;
  const last = e.lastErrorAt ? `, the last at ${e.lastErrorAt.slice(0, 19).replace('T', ' ')} UTC` : '';
  const func = e.lastErrorFunc ? ` (${e.lastErrorFunc})` : '';
  return `${on}: ${e.errorsCount} error${e.errorsCount === 1 ? '' : 's'} on record${last}${func}; not failing now`;
}
