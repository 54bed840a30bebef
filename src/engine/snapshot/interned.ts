import type { Host } from '../host/host.js';
import { readAttr } from './attr.js';

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
