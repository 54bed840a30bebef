import type { Host } from '../../host/host.js';

/** The largest driver/kubelet metadata file read (real ones are < 4 KiB; a bigger one is not theirs). */
const MAX_METADATA_BYTES = 64 * 1024;

export type JsonObjectResult = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

/**
 * Reads a small JSON object file, bounded and validated: too large, not JSON or not an object is a
 * problem, never an exception. The text is never echoed back in a problem (driver files hold CHAP
 * secrets in plain text, docs/csi-drivers.md).
 */
export function readJsonObject(host: Host, path: string): JsonObjectResult | undefined {
  const r = host.readTextOrError(path);
  if ('error' in r)
    return r.error === 'ENOENT' ? undefined : { ok: false, problem: `${path} unreadable (${r.error})` };
  return parseJsonObject(r.value, path);
}

function parseJsonObject(text: string, path: string): JsonObjectResult {
  if (text.length > MAX_METADATA_BYTES)
    return { ok: false, problem: `${path} is larger than ${MAX_METADATA_BYTES} bytes` };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${path} is not valid JSON` };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: false, problem: `${path} is not a JSON object` };
  return { ok: true, value: raw as Record<string, unknown> };
}

const MAX_FIELD = 4096;

/** A string field of at most 4 KiB without control characters, else undefined. */
export function str(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_FIELD) return undefined;
  if (/[\u0000-\u001f\u007f]/.test(v)) return undefined;
  return v;
}

/**
 * `str` with Go's encoding/json key matching: the exact key first, else the first key equal to it
 * ignoring case. Go's Unmarshal reads struct fields this way, and csi-lib-iscsi's `TargetInfo` had no
 * json tags until 2021 (0fd8753 wrote `Iqn`, `Portal`), so its own reader accepted either spelling.
 */
export function strFold(o: Record<string, unknown>, key: string): string | undefined {
  if (Object.hasOwn(o, key)) return str(o, key);
  const lower = key.toLowerCase();
  const k = Object.keys(o).find((x) => x.toLowerCase() === lower);
  return k === undefined ? undefined : str(o, k);
}

/** A list of valid strings (at most 64; anything else in the array is dropped). */
export function strList(o: Record<string, unknown>, key: string): string[] {
  const v = o[key];
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const x of v.slice(0, 64)) {
    const s = str({ x }, 'x');
    if (s !== undefined) out.push(s);
  }
  return out;
}

/** A non-negative safe integer field (numbers or decimal strings), else undefined. */
export function uint(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** A nested object field, else undefined. */
export function obj(o: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const v = o[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}
