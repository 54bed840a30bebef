/**
 * What a bundle holds: the set sosreport's `iscsi` and `multipath` plugins collect
 * (sosreport/sos sos/report/plugins/iscsi.py: iscsid.conf, initiatorname.iscsi, the node DB,
 * `iscsiadm -m session -P 3`, `-m node -P 1`, `-m iface`; multipath.py: /etc/multipath.conf,
 * /etc/multipath/, `multipathd show config`), without `multipath -ll` (it scans and can block on a
 * path-less map; `multipathd show maps json` reads the daemon's memory), plus what this console
 * knows: kubelet's and the CSI drivers' metadata files, the kernel log's iSCSI/SCSI/dm lines and
 * the udev records of the iSCSI devices. Every entry says how it is read and how it is scrubbed.
 */
import { CONNECTOR_DIRS, csiPluginDir, TRIDENT_TRACKING_DIR } from '../snapshot/csi/paths.js';
import { ISCSI_DB_ROOTS } from '../snapshot/iscsi-db.js';
import { MULTIPATHD_MAPS_ARGV } from '../snapshot/multipath-topology.js';

/** How a collected text is scrubbed. */
export type ScrubKind = 'records' | 'session-detail' | 'json' | 'text';

/** A tree of node files: regular files under `dir` (no link followed), `depth` levels down. */
export interface FileTree {
  dir: string;
  depth: number;
  /** Only files whose name matches (default: all). */
  match?: RegExp;
  scrub: ScrubKind;
}

interface CommandSource {
  /** Archive name under `commands/`. */
  name: string;
  argv: readonly string[];
  scrub: ScrubKind;
  /** Keep only lines matching (the kernel log's iSCSI/SCSI/dm lines). */
  lines?: RegExp;
}

/** The kernel log lines a storage case needs: iSCSI, SCSI disks, device-mapper and filesystems on them. */
const KERNEL_LINES =
  /iscsi|scsi|\bsd[a-z]+\b|\bdm-\d+|device-mapper|multipath|connection\d+:\d+|session\d+|EXT4-fs|XFS|blk_update_request|I\/O error|Buffer I\/O/i;

export function fileTrees(kubeletRoot: string): FileTree[] {
  const iscsi: FileTree[] = ISCSI_DB_ROOTS.flatMap((db) => [
    { dir: `${db}/nodes`, depth: 3, scrub: 'records' as const },
    { dir: `${db}/send_targets`, depth: 3, scrub: 'records' as const },
    { dir: `${db}/ifaces`, depth: 1, scrub: 'records' as const },
    { dir: `${db}/isns`, depth: 2, scrub: 'records' as const },
    { dir: `${db}/static`, depth: 3, scrub: 'records' as const },
    { dir: `${db}/fw`, depth: 3, scrub: 'records' as const },
  ]);
  return [
    { dir: '/etc/iscsi', depth: 0, match: /^(iscsid\.conf|initiatorname\.iscsi)$/, scrub: 'records' },
    ...iscsi,
    { dir: '/etc', depth: 0, match: /^multipath\.conf$/, scrub: 'text' },
    { dir: '/etc/multipath', depth: 1, scrub: 'text' },
    // kubelet's in-tree metadata (iscsi.json in each global dir) and CSI's vol_data.json.
    { dir: `${kubeletRoot}/plugins/kubernetes.io/iscsi`, depth: 3, match: /\.json$/, scrub: 'json' },
    { dir: csiPluginDir(kubeletRoot), depth: 4, match: /\.json$/, scrub: 'json' },
    ...CONNECTOR_DIRS.map((dir) => ({ dir, depth: 1, match: /\.json$/, scrub: 'json' as const })),
    { dir: TRIDENT_TRACKING_DIR, depth: 1, match: /\.json$/, scrub: 'json' },
  ];
}

export const COMMANDS: readonly CommandSource[] = [
  { name: 'iscsiadm-m-node-P1.txt', argv: ['iscsiadm', '-m', 'node', '-P', '1'], scrub: 'records' },
  { name: 'iscsiadm-m-iface.txt', argv: ['iscsiadm', '-m', 'iface'], scrub: 'records' },
  {
    name: 'iscsiadm-m-session-P3.txt',
    argv: ['iscsiadm', '-m', 'session', '-P', '3'],
    scrub: 'session-detail',
  },
  { name: 'multipathd-show-config.txt', argv: ['multipathd', 'show', 'config'], scrub: 'text' },
  { name: 'multipathd-show-maps-json.txt', argv: MULTIPATHD_MAPS_ARGV, scrub: 'text' },
  { name: 'kernel-log.txt', argv: ['dmesg'], scrub: 'text', lines: KERNEL_LINES },
];
