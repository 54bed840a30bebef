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

type Reader<V> = (host: Host, path: string) => V | undefined;

type AttrRow<V> = Reader<V> | readonly [file: string, read: Reader<V>];

/**
 * Which attribute file below one dir holds each field, and how it reads (readAttr, readIntAttr, …):
 * the reader alone when the file has the field's name (`vendor`), else `[file, reader]`.
 */
export type AttrTable<T> = {
  readonly [K in keyof T]?: AttrRow<NonNullable<T[K]>>;
};

/**
 * Sets on `into` each field of `table` whose attribute `dir` has (absent ones stay unset), in the
 * table's order; returns how many it set.
 */
export function readAttrs<T extends object>(host: Host, dir: string, table: AttrTable<T>, into: T): number {
  let set = 0;
  const out = into as Record<string, unknown>;
  for (const [key, row] of Object.entries(table) as [string, AttrRow<unknown>][]) {
    const v = typeof row === 'function' ? row(host, `${dir}/${key}`) : row[1](host, `${dir}/${row[0]}`);
    if (v === undefined) continue;
    out[key] = v;
    set++;
  }
  return set;
}
