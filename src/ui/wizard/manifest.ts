/**
 * Pod / PV manifests (+ a CHAP Secret) → wizard fields. Reads the same `iscsi` volume source
 * kubelet gets (core/v1 ISCSIVolumeSource / ISCSIPersistentVolumeSource); the Secret's keys are the
 * node-DB names kubelet copies (`node.session.auth.username`, ...), base64 in `data` or plain in
 * `stringData`.
 */
import { parseAllDocuments } from 'yaml';
import { UserError } from '../../engine/errors.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first iscsi volume in the documents, with the name kubelet would use (spec.Name()). */
function findIscsi(docs: unknown[]): { name: string; src: Obj } | undefined {
  for (const d of docs) {
    if (!isObj(d) || !isObj(d.spec)) continue;
    if (d.kind === 'PersistentVolume' && isObj(d.spec.iscsi)) {
      return { name: String((d.metadata as Obj | undefined)?.name ?? ''), src: d.spec.iscsi };
    }
    const vols =
      d.kind === 'Pod'
        ? d.spec.volumes
        : isObj(d.spec.template) && isObj((d.spec.template as Obj).spec)
          ? ((d.spec.template as Obj).spec as Obj).volumes
          : undefined;
    if (Array.isArray(vols)) {
      for (const v of vols)
        if (isObj(v) && isObj(v.iscsi)) return { name: String(v.name ?? ''), src: v.iscsi };
    }
  }
  return undefined;
}

export function fieldsFromManifest(text: string): Record<string, string> {
  const docs = parseAllDocuments(text).map((d) => d.toJS() as unknown);
  const found = findIscsi(docs);
  if (!found)
    throw new UserError(
      'no iscsi volume in this manifest',
      'expected a Pod (spec.volumes[].iscsi) or a PersistentVolume (spec.iscsi)',
    );
  const s = found.src;
  const str = (k: string) => (s[k] === undefined ? undefined : String(s[k]));
  const out: Record<string, string> = { volName: found.name };
  const set = (field: string, v: string | undefined) => {
    if (v !== undefined) out[field] = v;
  };
  set('targetPortal', str('targetPortal'));
  if (Array.isArray(s.portals)) out.portals = s.portals.map(String).join(',');
  set('iqn', str('iqn'));
  set('lun', str('lun'));
  set('fsType', str('fsType'));
  set('readOnly', s.readOnly === true ? 'true' : 'false');
  set('iscsiInterface', str('iscsiInterface'));
  set('initiatorName', str('initiatorName'));
  set('chapAuthDiscovery', s.chapAuthDiscovery === true ? 'true' : 'false');
  set('chapAuthSession', s.chapAuthSession === true ? 'true' : 'false');
  return out;
}

const SECRET_FIELDS: Record<string, string> = {
  'discovery.sendtargets.auth.username': 'discoveryUser',
  'discovery.sendtargets.auth.password': 'discoverySecret',
  'node.session.auth.username': 'sessionUser',
  'node.session.auth.password': 'sessionSecret',
};

/** CHAP values from a Secret manifest (never echoed: errors name keys, never values). */
export function fieldsFromSecret(text: string): Record<string, string> {
  const doc = parseAllDocuments(text)
    .map((d) => d.toJS() as unknown)
    .find((d) => isObj(d) && d.kind === 'Secret') as Obj | undefined;
  if (!doc) throw new UserError('no Secret in this file');
  const out: Record<string, string> = {};
  const data = isObj(doc.data) ? doc.data : {};
  const plain = isObj(doc.stringData) ? doc.stringData : {};
  for (const [key, field] of Object.entries(SECRET_FIELDS)) {
    if (plain[key] !== undefined) out[field] = String(plain[key]);
    else if (data[key] !== undefined) out[field] = Buffer.from(String(data[key]), 'base64').toString('utf8');
  }
  return out;
}
