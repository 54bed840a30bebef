import { z } from 'zod';
import type { IscsiJson } from '../model.js';

/**
 * kubelet's iscsi.json (`persistISCSI`, kubelet-iscsi-engine.md §1.9): the exported fields of
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

export type IscsiJsonResult = { ok: true; value: IscsiJson } | { ok: false; problem: string };

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
