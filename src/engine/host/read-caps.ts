/**
 * How many bytes the Host reads from one file, by what the file is. Every byte from a node is
 * untrusted: an attribute can be a link to /dev/zero or a 100 MB file in a `--root` tree, so a read
 * stops at its cap and the file is refused (EFBIG) rather than read into a huge string. Caps are sized
 * for real nodes with tens of thousands of mounts; docs/read-limits.md lists them with the reasoning.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

export interface ReadCap {
  bytes: number;
  /** What kind of file the cap is for, for the problem line. */
  what: string;
}

/** A sysfs attribute's show() fills at most one page (fs/sysfs/file.c, PAGE_SIZE; 4 KiB on x86-64). */
const SYSFS_CAP: ReadCap = { bytes: 4096, what: 'sysfs attribute (one page)' };
/**
 * /proc/<pid>/mountinfo: one line per mount, ~150–300 bytes on a kubelet node (pod volume paths
 * carry a 36-char pod UID). 32 MiB holds > 100,000 such lines.
 */
const MOUNTINFO_CAP: ReadCap = { bytes: 32 * MiB, what: 'mountinfo' };
/** /proc/swaps: at most MAX_SWAPFILES (< 32, include/linux/swap.h) lines, each a path ≤ PATH_MAX. */
const SWAPS_CAP: ReadCap = { bytes: 256 * KiB, what: '/proc/swaps' };
/** kubelet's iscsi.json (pkg/volume/iscsi/iscsi_util.go persistISCSIFile): ~0.5 KiB; portals list. */
const ISCSI_JSON_CAP: ReadCap = { bytes: 64 * KiB, what: 'iscsi.json' };
/** An open-iscsi node, iface or send_targets record (usr/idbm.c): ~100 `key = value` lines. */
const NODE_DB_CAP: ReadCap = { bytes: 256 * KiB, what: 'iscsi node DB record' };
/** /proc/<pid>/net/unix: a line per socket (~100 bytes + path) on a busy node. */
const PROC_NET_CAP: ReadCap = { bytes: 16 * MiB, what: '/proc net table' };
/** The console's own append-only journal (JSON lines). */
const JOURNAL_CAP: ReadCap = { bytes: 64 * MiB, what: 'journal' };
/** Everything else: hostname, initiatorname.iscsi, iscsid.conf, /proc/<pid>/cmdline, modules lists. */
const DEFAULT_CAP: ReadCap = { bytes: 1 * MiB, what: 'file' };

/** The cap for a host path (cheap: this runs once per read, ~57,000 times per 1,000-session snapshot). */
export function readCapFor(path: string): ReadCap {
  if (path.startsWith('/sys/')) return SYSFS_CAP;
  if (path.startsWith('/proc/')) {
    if (path.endsWith('/mountinfo')) return MOUNTINFO_CAP;
    if (path === '/proc/swaps') return SWAPS_CAP;
    if (path.includes('/net/')) return PROC_NET_CAP;
    return DEFAULT_CAP;
  }
  if (path.endsWith('/iscsi.json')) return ISCSI_JSON_CAP;
  if (path.startsWith('/etc/iscsi/') || path.startsWith('/var/lib/iscsi/')) return NODE_DB_CAP;
  if (path.endsWith('/journal.jsonl')) return JOURNAL_CAP;
  return DEFAULT_CAP;
}

/**
 * A `--manifest`/`--secret` file: a PV, Pod or Secret is a few KiB (`kubectl get -o yaml` with
 * managedFields ~10 KiB); 1 MiB holds a multi-document file of a hundred of them.
 */
export const MANIFEST_CAP: ReadCap = { bytes: 1 * MiB, what: 'manifest' };
