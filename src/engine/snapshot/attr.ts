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
/** Distinct values kept by `interned`; past this the table starts again (a bound, not a tuning). */
const INTERN_MAX = 1024;
const internTable = new Map<string, string>();

/**
 * One string per distinct value, for attributes that repeat across thousands of objects (a disk's
 * state, vendor, model, rev; a session's state and iface). Every read makes a new string, and a
 * snapshot keeps them all: ~0.5 MB of copies of `running`, `IET` and the like at 1,000 sessions ×
 * 4 LUNs (bench/README.md). Equal strings are indistinguishable, so this changes no value.
 */
export function interned(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const hit = internTable.get(v);
  if (hit !== undefined) return hit;
  if (internTable.size >= INTERN_MAX) internTable.clear();
  internTable.set(v, v);
  return v;
}

/** readAttr for a value that repeats across objects (`interned`). */
export function readSharedAttr(host: Host, path: string): string | undefined {
  return interned(readAttr(host, path));
}

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

/** Which attribute file below one dir holds each field, and how it reads (readAttr, readIntAttr, …). */
export type AttrTable<T> = {
  readonly [K in keyof T]?: readonly [file: string, read: Reader<NonNullable<T[K]>>];
};

/**
 * Sets on `into` each field of `table` whose attribute `dir` has (absent ones stay unset), in the
 * table's order; returns how many it set.
 */
export function readAttrs<T extends object>(host: Host, dir: string, table: AttrTable<T>, into: T): number {
  let set = 0;
  const out = into as Record<string, unknown>;
  for (const [key, row] of Object.entries(table) as [string, readonly [string, Reader<unknown>]][]) {
    const v = row[1](host, `${dir}/${row[0]}`);
    if (v === undefined) continue;
    out[key] = v;
    set++;
  }
  return set;
}
