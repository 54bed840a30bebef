import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseIscsiJson } from '../../src/engine/snapshot/index.js';

/**
 * The snapshot checks kubelet's iscsi.json by hand (zod costs a one-shot `status` too much start-up);
 * its problems keep the wording zod gave. The oracle is zod itself, with the schema of the fields
 * kubelet writes (docs/kubelet-iscsi.md#iscsijson) and zod's own English messages.
 */
const KubeletIscsiJson = z.object({
  VolName: z.string().optional(),
  Portals: z.array(z.string()).optional(),
  Iqn: z.string().optional(),
  Lun: z.union([z.string(), z.number().int().nonnegative().transform(String)]).optional(),
  InitIface: z.string().optional(),
  Iface: z.string().optional(),
  InitiatorName: z.string().optional(),
});

function byZod(text: string): { value?: unknown; issues?: string } {
  const r = KubeletIscsiJson.safeParse(JSON.parse(text));
  if (r.success)
    return { value: Object.fromEntries(Object.entries(r.data).filter(([, v]) => v !== undefined)) };
  return { issues: r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}

const IQN = '"Iqn":"iqn.2024-01.x:y"';
const WRONG_TYPES = [
  '{"Iqn": 42, "Portals": "x"}',
  `{${IQN}, "Portals": [1, "10.0.0.1:3260", null, true, {}, []]}`,
  `{${IQN}, "Portals": {}}`,
  `{"VolName": 3, "Iqn": null, "InitIface": {}, "Iface": [], "InitiatorName": true}`,
  `{${IQN}, "Lun": 1.5}`,
  `{${IQN}, "Lun": -1}`,
  `{${IQN}, "Lun": true}`,
  `{${IQN}, "Lun": null}`,
  `{${IQN}, "Lun": [1]}`,
  `{${IQN}, "Lun": 1152921504606846976}`,
  `{${IQN}, "Lun": 1e999}`,
  `{"Iqn": 1e999, "VolName": -1e999}`,
  `{"Portals": "x", "Lun": -2.5, "Iqn": 7}`,
];
const RIGHT_TYPES = [
  `{${IQN}, "Lun": 3, "MetricsProvider": null, "chap": "x"}`,
  `{${IQN}, "Lun": -0}`,
  `{${IQN}, "Lun": "007", "Portals": [], "VolName": "", "Iface": "default", "InitIface": "default", "InitiatorName": ""}`,
  `{"InitiatorName": "iqn.x", "Iface": "a", "InitIface": "b", "Lun": 9007199254740991, ${IQN}, "Portals": ["p"], "VolName": "v"}`,
];

describe('parseIscsiJson', () => {
  it('words a file with a field of the wrong type as zod does, listing every such field', () => {
    for (const text of WRONG_TYPES) {
      const r = parseIscsiJson(text);
      expect(r, text).toEqual({
        ok: false,
        problem: `iscsi.json has unexpected field types (${byZod(text).issues})`,
      });
    }
  });

  it('reads a file whose fields have their types as zod parses it (LUN as text, field order)', () => {
    for (const text of RIGHT_TYPES) {
      const r = parseIscsiJson(text);
      expect(r.ok, text).toBe(true);
      const got = (r as { value: unknown }).value;
      expect(got).toEqual(byZod(text).value);
      expect(Object.keys(got as object)).toEqual(Object.keys(byZod(text).value as object));
    }
  });

  it('names the field, the type kubelet writes and the type found (hand-written expectations)', () => {
    expect(parseIscsiJson('{"Iqn": 42, "Portals": ["a", 1]}')).toEqual({
      ok: false,
      problem:
        'iscsi.json has unexpected field types (Portals.1: Invalid input: expected string, received number; ' +
        'Iqn: Invalid input: expected string, received number)',
    });
    expect(parseIscsiJson('{"Iqn": "iqn.2024-01.x:y", "Lun": 1.5}')).toEqual({
      ok: false,
      problem: 'iscsi.json has unexpected field types (Lun: Invalid input)',
    });
    expect(parseIscsiJson('{"Iqn": "iqn.2024-01.x:y", "Lun": 4}')).toEqual({
      ok: true,
      value: { Iqn: 'iqn.2024-01.x:y', Lun: '4' },
    });
    expect(parseIscsiJson('{"Iqn": ""}')).toEqual({ ok: false, problem: 'iscsi.json names no Iqn' });
  });
});
