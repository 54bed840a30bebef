/**
 * What a read is for, by its host path: the same classifier counts the snapshot's reads (through
 * RecordingHost) and the independent floor's (its own counter), so "reads beyond the floor" per kind
 * is one subtraction and an unneeded read shows up as a number in its kind (bench/README.md).
 * Kinds follow the kernel's sysfs layout (docs/iscsiadm.md "Sysfs") and the node files the snapshot
 * reads (docs/read-limits.md, docs/csi-drivers.md).
 */

/** Read kinds in table order; `other` catches what no rule names. */
export const READ_KINDS = [
  'session attrs',
  'connection attrs',
  'host attrs',
  'SCSI device attrs',
  'block device attrs',
  'device-mapper',
  'udev db',
  '/dev links',
  'iscsi db',
  'kubelet dirs',
  'CSI',
  'mounts and swaps',
  'processes',
  'other',
] as const;

export type ReadKind = (typeof READ_KINDS)[number];

/** How a path was read: a file's content, a directory listing, or a link/stat (metadata only). */
export type ReadClass = 'file' | 'dir' | 'meta';

const HCTL_DIR = /\/\d+:\d+:\d+:\d+(\/|$)/;

/** The kind of one host path (as the engine passes it: absolute, inside the node's root). */
export function readKind(path: string): ReadKind {
  if (path.startsWith('/sys/')) return sysKind(path);
  if (path.startsWith('/run/udev/')) return 'udev db';
  if (
    path.includes('/kubernetes.io/csi') ||
    path.includes('iscsi.csi.k8s.io') ||
    path.startsWith('/var/lib/trident') ||
    path.startsWith('/dev/longhorn')
  )
    return 'CSI';
  if (path.startsWith('/dev/')) return '/dev links';
  if (path.startsWith('/etc/iscsi') || path.startsWith('/var/lib/iscsi')) return 'iscsi db';
  if (path.startsWith('/var/lib/kubelet') || path.startsWith('/var/log/pods')) return 'kubelet dirs';
  if (path === '/proc/swaps' || path.endsWith('/mountinfo')) return 'mounts and swaps';
  if (path.startsWith('/proc')) return 'processes';
  return 'other';
}

/** A sysfs path: the innermost object named in it decides (a disk below a session is a disk). */
function sysKind(path: string): ReadKind {
  if (/\/dm-\d+(\/|$)/.test(path) || path.startsWith('/sys/devices/virtual/block')) return 'device-mapper';
  if (/\/block\/[^/]+/.test(path) || path.startsWith('/sys/class/block')) return 'block device attrs';
  if (HCTL_DIR.test(path) || /\/target\d+:\d+:\d+(\/|$)/.test(path) || path.startsWith('/sys/bus/scsi'))
    return 'SCSI device attrs';
  if (path.includes('iscsi_connection') || /\/connection\d+:\d+(\/|$)/.test(path)) return 'connection attrs';
  if (path.includes('iscsi_session') || /\/session\d+(\/device)?$/.test(path)) return 'session attrs';
  if (path.includes('iscsi_host') || path.includes('scsi_host') || /\/host\d+(\/|$)/.test(path))
    return 'host attrs';
  return 'other';
}

/** Counts of reads by kind and class. */
export type KindCounts = Record<ReadKind, Record<ReadClass, number>>;

export function emptyKindCounts(): KindCounts {
  const out = {} as KindCounts;
  for (const k of READ_KINDS) out[k] = { file: 0, dir: 0, meta: 0 };
  return out;
}

/** Adds one read to `counts`. */
export function countRead(counts: KindCounts, path: string, cls: ReadClass): void {
  counts[readKind(path)][cls]++;
}

/** Total reads of one kind (files + dirs + links/stats). */
export function kindTotal(c: Record<ReadClass, number>): number {
  return c.file + c.dir + c.meta;
}
