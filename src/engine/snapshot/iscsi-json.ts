import { z } from 'zod';
import type { IscsiJson } from '../model.js';

/**
 * kubelet's iscsi.json (`persistISCSI`, docs/kubelet-iscsi.md#iscsijson): the exported fields of
 * iscsiDisk. Every field is optional because older kubelets wrote fewer (no `InitIface` before
 * PR #79977; no `Lun` in 2017-18 code); unknown fields (`MetricsProvider`) are ignored.
 */
const IscsiJsonSchema = z.object({
  VolName: z.string().optional(),
  Portals: z.array(z.string()).optional(),
  Iqn: z.string().optional(),
  Lun: z.union([z.string(), z.number().int().nonnegative().transform(String)]).optional(),
  InitIface: z.string().optional(),
  Iface: z.string().optional(),
  InitiatorName: z.string().optional(),
});

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
  const fast = plainIscsiJson(raw as Record<string, unknown>);
  if (fast) return fast.Iqn ? { ok: true, value: fast } : { ok: false, problem: 'iscsi.json names no Iqn' };
  const r = IscsiJsonSchema.safeParse(raw);
  if (!r.success) {
    const what = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, problem: `iscsi.json has unexpected field types (${what})` };
  }
  const v: IscsiJson = {};
  for (const [k, val] of Object.entries(r.data)) {
    if (val !== undefined) (v as Record<string, unknown>)[k] = val;
  }
  if (!v.Iqn) return { ok: false, problem: 'iscsi.json names no Iqn' };
  return { ok: true, value: v };
}

const STRING_FIELDS = ['VolName', 'Iqn', 'InitIface', 'Iface', 'InitiatorName'] as const;

/**
 * The schema above, by hand, for the file kubelet writes (every field of the right type): what the
 * schema would return, in its key order, without its per-call cost (thousands of volumes per
 * snapshot, bench/README.md). Undefined when any field is off, so the schema itself words the problem.
 */
function plainIscsiJson(raw: Record<string, unknown>): IscsiJson | undefined {
  for (const k of STRING_FIELDS) {
    const v = raw[k];
    if (v !== undefined && typeof v !== 'string') return undefined;
  }
  const portals = raw.Portals;
  if (portals !== undefined) {
    if (!Array.isArray(portals)) return undefined;
    for (const p of portals) if (typeof p !== 'string') return undefined;
  }
  let lun = raw.Lun;
  if (typeof lun === 'number') {
    if (!Number.isSafeInteger(lun) || lun < 0) return undefined;
    lun = String(lun);
  } else if (lun !== undefined && typeof lun !== 'string') return undefined;
  // Key order as the schema's output (z.object keeps its shape's order).
  const v: IscsiJson = {};
  if (raw.VolName !== undefined) v.VolName = raw.VolName as string;
  if (portals !== undefined) v.Portals = [...(portals as string[])];
  if (raw.Iqn !== undefined) v.Iqn = raw.Iqn as string;
  if (lun !== undefined) v.Lun = lun as string;
  if (raw.InitIface !== undefined) v.InitIface = raw.InitIface as string;
  if (raw.Iface !== undefined) v.Iface = raw.Iface as string;
  if (raw.InitiatorName !== undefined) v.InitiatorName = raw.InitiatorName as string;
  return v;
}
