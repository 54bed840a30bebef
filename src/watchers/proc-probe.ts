/**
 * Mount and swap change detection by content. /proc/1/mountinfo is procfs (no inotify; poll(2)
 * POLLPRI works on it but Node has no clean way to wait on that for a plain fd), so it is read on
 * the poll tick: one read. A node's container runtime mounts and unmounts overlay/tmpfs/proc/shm all
 * day; those have device major 0 and can never be an iSCSI disk, so they are left out of the
 * fingerprint and do not cost a full snapshot.
 */
import { createHash } from 'node:crypto';
import type { Host } from '../engine/host/host.js';
import { MOUNTINFO_PATH } from '../engine/snapshot/mountinfo.js';
import { readSwaps } from '../engine/snapshot/swaps.js';

/** Fields of a mountinfo line: `id parent maj:min root mountpoint options ...` (proc(5)). */
const MAJOR = /^\S+ \S+ (\d+):/;

/** Keeps the mountinfo lines of block-backed mounts (major ≠ 0), which include every iSCSI mount. */
export function blockMountLines(text: string): string {
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const m = MAJOR.exec(line);
    if (m && m[1] !== '0') kept.push(line);
  }
  return kept.join('\n');
}

export interface ProcProbe {
  /** Digest of the last raw mountinfo text (compared first: the common case is "identical"). */
  raw: string;
  /**
   * The block-backed mounts as a digest, and the swap area names. Digests, not texts: the probe
   * kept two copies of mountinfo (~0.5 MB each at 3,000 mounts) only to compare them next tick;
   * hashing it costs ~0.3 ms a tick there (bench/README.md).
   */
  fingerprint: string;
}

/** SHA-256 as a change detector (a collision would only delay a re-read). */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

/**
 * Reads mountinfo and swaps; reuses `prev`'s filtered fingerprint when the raw text is identical.
 * /proc/swaps' Used column moves constantly, so only the swap area names count.
 */
export function probeProc(host: Host, prev?: ProcProbe): ProcProbe {
  const text = host.readText(MOUNTINFO_PATH);
  // An unreadable mountinfo reads as empty, as before.
  const raw = text === undefined ? '' : digest(text);
  const swaps = readSwaps(host).join('\n');
  if (prev && prev.raw === raw) {
    const cut = prev.fingerprint.indexOf('\0');
    // Nothing moved (the idle tick): hand back `prev` itself, so the caller's fingerprint compare is
    // a pointer compare (bench/README.md).
    if (prev.fingerprint.slice(cut + 1) === swaps) return prev;
    return { raw, fingerprint: `${prev.fingerprint.slice(0, cut)}\0${swaps}` };
  }
  return { raw, fingerprint: `${digest(blockMountLines(text ?? ''))}\0${swaps}` };
}
