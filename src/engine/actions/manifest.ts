/**
 * Kubernetes manifests → attach input: a Pod (inline `iscsi` volume) or a PersistentVolume
 * (`spec.iscsi`), plus an optional Secret with the CHAP keys (docs/kubelet-iscsi.md#data-model-and-naming, docs/kubelet-iscsi.md#chap). YAML or JSON, one or
 * several documents. Secret values are returned apart and never appear in errors.
 */
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { readAdminFile } from '../host/local-file.js';
import { MANIFEST_CAP } from '../host/read-caps.js';
import { MAX_TARGET_LUN } from '../iscsi/lun.js';
import { chapValuesProblem, validateAttachInput } from './attach-input.js';
import { DEFAULT_FS_TYPE, DEFAULT_IFACE } from './attach-params.js';
import type { AttachInput } from './attach-types.js';
import { CHAP_KEYS } from './chap-keys.js';

const IscsiSource = z.object({
  targetPortal: z.string().min(1),
  portals: z.array(z.string()).optional(),
  iqn: z.string().min(1),
  lun: z.number().int().min(0).max(MAX_TARGET_LUN),
  fsType: z.string().optional(),
  readOnly: z.boolean().optional(),
  chapAuthDiscovery: z.boolean().optional(),
  chapAuthSession: z.boolean().optional(),
  initiatorName: z.string().optional(),
  iscsiInterface: z.string().optional(),
  secretRef: z.object({ name: z.string(), namespace: z.string().optional() }).optional(),
});
type IscsiSource = z.infer<typeof IscsiSource>;

const Meta = z.object({ name: z.string().min(1), namespace: z.string().optional() });

const Pv = z.object({
  kind: z.literal('PersistentVolume'),
  metadata: Meta,
  spec: z.object({
    iscsi: IscsiSource,
    volumeMode: z.enum(['Filesystem', 'Block']).optional(),
    mountOptions: z.array(z.string()).optional(),
  }),
});

const Pod = z.object({
  kind: z.literal('Pod'),
  metadata: Meta,
  spec: z.object({
    volumes: z.array(z.object({ name: z.string(), iscsi: IscsiSource.optional() })).optional(),
  }),
});

const Secret = z.object({
  kind: z.literal('Secret'),
  metadata: Meta,
  data: z.record(z.string(), z.string()).optional(),
  stringData: z.record(z.string(), z.string()).optional(),
});

interface ManifestAttach {
  input: AttachInput;
  /** Name of the Secret the volume refers to (if any). */
  secretName?: string;
}

/**
 * YAML aliases a manifest may use. Kubernetes objects need none (kubectl never writes them); a few
 * hand-written anchors are fine, but each alias expands to a copy, so a "billion laughs" file of
 * nested aliases would grow to gigabytes: past this the `yaml` package refuses (maxAliasCount).
 */
const MAX_YAML_ALIASES = 100;

/** A `--manifest`/`--secret` file, read bounded and non-blocking (regular files only); UserError otherwise. */
export function readManifestFile(path: string): string {
  return readAdminFile(path, MANIFEST_CAP);
}

function docs(text: string, file: string): unknown[] {
  const out: unknown[] = [];
  for (const d of parseAllDocuments(text)) {
    if ('errors' in d && d.errors.length > 0) {
      throw new UserError(`${file}: not valid YAML/JSON (${d.errors[0]!.message.split('\n')[0]})`);
    }
    let v: unknown;
    try {
      v = d.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    } catch (e) {
      throw new UserError(
        `${file}: not a usable manifest (${(e as Error).message.split('\n')[0]})`,
        `at most ${MAX_YAML_ALIASES} YAML aliases are expanded; write the values out`,
      );
    }
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

/** zod issues as `path: message` — never the received value (it could be a secret). */
function issues(e: z.ZodError): string {
  return e.issues
    .map(
      (i) =>
        `${i.path.join('.') || '(root)'}: ${i.code === 'invalid_type' ? `expected ${(i as { expected?: string }).expected}` : i.message}`,
    )
    .join('; ');
}

function fromSource(src: IscsiSource, volName: string, block: boolean, mountOptions: string[]): AttachInput {
  return {
    volName,
    portals: [src.targetPortal, ...(src.portals ?? [])],
    iqn: src.iqn,
    lun: src.lun,
    mode: block ? 'block' : 'filesystem',
    fsType: src.fsType || DEFAULT_FS_TYPE,
    readOnly: src.readOnly ?? false,
    initIface: src.iscsiInterface || DEFAULT_IFACE,
    ...(src.initiatorName ? { initiatorName: src.initiatorName } : {}),
    chapDiscovery: src.chapAuthDiscovery ?? false,
    chapSession: src.chapAuthSession ?? false,
    secretKeys: [],
    mount: !block,
    mountOptions,
  };
}

/**
 * The iscsi volume of a PV or Pod manifest. With several iSCSI volumes in a Pod, `volumeName`
 * picks one.
 */
export function attachFromManifest(text: string, file: string, volumeName?: string): ManifestAttach {
  const all = docs(text, file);
  const candidates: ManifestAttach[] = [];
  for (const d of all) {
    const kind = (d as { kind?: unknown })?.kind;
    if (kind === 'PersistentVolume') {
      const r = Pv.safeParse(d);
      if (!r.success) throw new UserError(`${file}: PersistentVolume is not an iSCSI PV: ${issues(r.error)}`);
      const pv = r.data;
      candidates.push({
        input: fromSource(
          pv.spec.iscsi,
          pv.metadata.name,
          pv.spec.volumeMode === 'Block',
          pv.spec.mountOptions ?? [],
        ),
        ...(pv.spec.iscsi.secretRef ? { secretName: pv.spec.iscsi.secretRef.name } : {}),
      });
    } else if (kind === 'Pod') {
      const r = Pod.safeParse(d);
      if (!r.success) throw new UserError(`${file}: Pod: ${issues(r.error)}`);
      for (const v of r.data.spec.volumes ?? []) {
        if (!v.iscsi) continue;
        candidates.push({
          input: fromSource(v.iscsi, v.name, false, []),
          ...(v.iscsi.secretRef ? { secretName: v.iscsi.secretRef.name } : {}),
        });
      }
    }
  }
  const picked = volumeName ? candidates.filter((c) => c.input.volName === volumeName) : candidates;
  if (picked.length === 0) {
    throw new UserError(
      `${file}: no iSCSI volume${volumeName ? ` named ${volumeName}` : ''} in it`,
      'give a PersistentVolume with spec.iscsi, or a Pod with an iscsi volume',
    );
  }
  if (picked.length > 1) {
    throw new UserError(
      `${file} has several iSCSI volumes: ${picked.map((c) => c.input.volName).join(', ')}`,
      'pick one with --volume-name',
    );
  }
  // The same strict check as flags and the wizard: names from a manifest build kubelet paths too.
  validateAttachInput(picked[0]!.input, file);
  return picked[0]!;
}

/** The CHAP keys of a Secret manifest (data base64-decoded, stringData as is). Values stay out of errors. */
export function chapFromSecret(text: string, file: string, name?: string): Record<string, string> {
  const secrets = docs(text, file).filter((d) => (d as { kind?: unknown })?.kind === 'Secret');
  const parsed = secrets.map((d) => {
    const r = Secret.safeParse(d);
    if (!r.success) throw new UserError(`${file}: Secret: ${issues(r.error)}`);
    return r.data;
  });
  const s = name ? parsed.find((x) => x.metadata.name === name) : parsed[0];
  if (!s) throw new UserError(`${file}: no Secret${name ? ` named ${name}` : ''} in it`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.data ?? {})) {
    if (!CHAP_KEYS.includes(k)) continue;
    if (!/^[A-Za-z0-9+/=\s]*$/.test(v)) throw new UserError(`${file}: Secret data ${k} is not base64`);
    out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  for (const [k, v] of Object.entries(s.stringData ?? {})) if (CHAP_KEYS.includes(k)) out[k] = v;
  for (const [k, v] of Object.entries(out)) if (v === '') delete out[k];
  const problem = chapValuesProblem(out);
  if (problem) throw new UserError(`${file}: Secret ${problem}`);
  return out;
}
