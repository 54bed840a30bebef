import type { IscsiJson } from '../model.js';

/**
 * kubelet's iscsi.json (`persistISCSI`, docs/kubelet-iscsi.md#iscsijson): the exported fields of
 * iscsiDisk. Every field is optional because older kubelets wrote fewer (no `InitIface` before
 * PR #79977; no `Lun` in 2017-18 code); unknown fields (`MetricsProvider`) are ignored.
 *
 * Checked by hand rather than with a schema library: `status` reads this file on every volume, and
 * loading zod (a 0.7 MB chunk) cost a one-shot `status --json` ~55 ms of CPU at start, most of its
 * start-up beyond Node's own. A problem is worded as zod's English messages word it (the
 * wording `status` has always printed; test/snapshot/iscsi-json.test.ts holds the two side by side).
 */
type IscsiJsonResult = { ok: true; value: IscsiJson } | { ok: false; problem: string };

/** Parses and validates iscsi.json text. Never throws: a bad file is a problem on its volume. */
export function parseIscsiJson(text: string): IscsiJsonResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `iscsi.json is not valid JSON (${(e as Error).message})` };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, problem: 'iscsi.json is not a JSON object' };
  }
  const fields = raw as Record<string, unknown>;
  const issues = fieldIssues(fields);
  if (issues.length > 0) {
    return { ok: false, problem: `iscsi.json has unexpected field types (${issues.join('; ')})` };
  }
  const value = typedIscsiJson(fields);
  return value.Iqn ? { ok: true, value } : { ok: false, problem: 'iscsi.json names no Iqn' };
}

/** The fields in the order a problem lists them (the order of `IscsiJson`). */
const FIELDS = ['VolName', 'Portals', 'Iqn', 'Lun', 'InitIface', 'Iface', 'InitiatorName'] as const;

/** What a JSON value is, for a problem: `null`, `array`, `Infinity` (from `1e999`) or its typeof. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v;
}

function expected(what: string, v: unknown): string {
  return `Invalid input: expected ${what}, received ${kindOf(v)}`;
}

/** A LUN is a string (kubelet's) or a whole number ≥ 0 that fits a double exactly. */
function isLunNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** One `path: message` per field of the wrong type, in field order; empty when all are right. */
function fieldIssues(raw: Record<string, unknown>): string[] {
  const issues: string[] = [];
  for (const k of FIELDS) {
    const v = raw[k];
    if (v === undefined) continue;
    if (k === 'Portals') {
      if (!Array.isArray(v)) issues.push(`Portals: ${expected('array', v)}`);
      else
        for (const [i, p] of v.entries()) {
          if (typeof p !== 'string') issues.push(`Portals.${i}: ${expected('string', p)}`);
        }
    } else if (k === 'Lun') {
      // Neither a string nor a LUN number: no single type to name.
      if (typeof v !== 'string' && !isLunNumber(v)) issues.push('Lun: Invalid input');
    } else if (typeof v !== 'string') {
      issues.push(`${k}: ${expected('string', v)}`);
    }
  }
  return issues;
}

/** The fields of a file whose every field has its type, in field order, a numeric LUN as text. */
function typedIscsiJson(raw: Record<string, unknown>): IscsiJson {
  const v: IscsiJson = {};
  if (raw.VolName !== undefined) v.VolName = raw.VolName as string;
  if (raw.Portals !== undefined) v.Portals = [...(raw.Portals as string[])];
  if (raw.Iqn !== undefined) v.Iqn = raw.Iqn as string;
  if (raw.Lun !== undefined) v.Lun = String(raw.Lun);
  if (raw.InitIface !== undefined) v.InitIface = raw.InitIface as string;
  if (raw.Iface !== undefined) v.Iface = raw.Iface as string;
  if (raw.InitiatorName !== undefined) v.InitiatorName = raw.InitiatorName as string;
  return v;
}
