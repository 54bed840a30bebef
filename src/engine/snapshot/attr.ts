import type { Host } from '../host/host.js';

/**
 * sysfs attribute helpers. sysfs values end in `\n` and some are space-padded (SCSI `vendor`/`model`
 * are fixed-width INQUIRY fields), and the kernel prints `(null)` for unset strings (iscsi_host
 * `netdev`/`hwaddress`, iscsi_session `username`): all read as absent.
 */

/** Errno codes that mean "this object disappeared while we read it" on a live node. */
export const VANISHED = new Set(['ENOENT', 'ENODEV', 'ENXIO']);

/** Trims a raw attribute; `(null)` and empty become undefined. */
export function cleanAttr(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const v = raw.trim();
  return v === '' || v === '(null)' ? undefined : v;
}

/** Reads one attribute: trimmed text, or undefined when absent, unreadable or `(null)`. */
export function readAttr(host: Host, path: string): string | undefined {
  return cleanAttr(host.readText(path));
}

/** Parses a decimal integer attribute; undefined for anything else (odd values never throw). */
export function toInt(v: string | undefined): number | undefined {
  if (v === undefined || !/^-?\d+$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Reads an integer attribute. */
export function readIntAttr(host: Host, path: string): number | undefined {
  return toInt(readAttr(host, path));
}
