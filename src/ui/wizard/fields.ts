/**
 * The wizard's form fields ↔ the engine's AttachInput. Manifests are read by the engine
 * (engine/actions/manifest.ts) and input rules are the engine's (attach-input.ts); this module only
 * maps between the form and the input, and puts each engine problem beside its field. Fields mirror
 * a Pod's `iscsi` volume source (k8s core/v1 ISCSIVolumeSource) plus the CHAP values its Secret holds.
 */

import {
  type AttachField,
  attachInputProblems,
  chapValuesProblem,
  DEFAULT_FS_TYPE,
  DEFAULT_IFACE,
  decimalOf,
  portalProblem,
} from '../../app/domain.js';
import type { AttachInput } from '../../engine/actions/attach-types.js';

/** Secret keys (the node-DB names kubelet copies from the Secret) → wizard fields. */
const SECRET_FIELDS: Record<string, string> = {
  'discovery.sendtargets.auth.username': 'discoveryUser',
  'discovery.sendtargets.auth.password': 'discoverySecret',
  'node.session.auth.username': 'sessionUser',
  'node.session.auth.password': 'sessionSecret',
};

const bool = (b: boolean) => (b ? 'true' : 'false');

/** An AttachInput (from a manifest) as form fields. */
export function fieldsFromInput(i: AttachInput): Record<string, string> {
  return {
    volName: i.volName,
    targetPortal: i.portals[0] ?? '',
    portals: i.portals.slice(1).join(','),
    iqn: i.iqn,
    lun: String(i.lun),
    fsType: i.fsType,
    readOnly: bool(i.readOnly),
    block: bool(i.mode === 'block'),
    mount: bool(i.mount),
    iscsiInterface: i.initIface,
    initiatorName: i.initiatorName ?? '',
    chapAuthDiscovery: bool(i.chapDiscovery),
    chapAuthSession: bool(i.chapSession),
    keepOnFailure: bool(i.keepOnFailure === true),
  };
}

/** CHAP values (from a Secret) as form fields. */
export function fieldsFromSecrets(secrets: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, field] of Object.entries(SECRET_FIELDS))
    if (secrets[key] !== undefined) out[field] = secrets[key];
  return out;
}

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The form as the engine's AttachInput; CHAP values travel apart (wizardSecrets). */
export function wizardInput(
  f: Record<string, string>,
  discovered?: readonly { portal: string; iqn: string }[],
): AttachInput {
  const secrets = wizardSecrets(f);
  return {
    volName: f.volName?.trim() ?? '',
    portals: [f.targetPortal?.trim() ?? '', ...list(f.portals)],
    iqn: f.iqn?.trim() ?? '',
    // The engine's strict parser (decimal digits only): ` 1`, `0x10` and `1e3` are not LUNs.
    lun: decimalOf(f.lun ?? '') ?? Number.NaN,
    mode: f.block === 'true' ? 'block' : 'filesystem',
    fsType: f.fsType?.trim() || DEFAULT_FS_TYPE,
    readOnly: f.readOnly === 'true',
    initIface: f.iscsiInterface?.trim() || DEFAULT_IFACE,
    ...(f.initiatorName?.trim() ? { initiatorName: f.initiatorName.trim() } : {}),
    chapDiscovery: f.chapAuthDiscovery === 'true',
    chapSession: f.chapAuthSession === 'true',
    secretKeys: Object.keys(secrets),
    mount: f.mount === 'true' && f.block !== 'true',
    mountOptions: [],
    ...(f.keepOnFailure === 'true' ? { keepOnFailure: true } : {}),
    ...(discovered ? { discovered: discovered.map((d) => ({ portal: d.portal, iqn: d.iqn })) } : {}),
  };
}

/** CHAP values for apply's `secrets`, keyed by node-DB names (never part of the plan, never rendered). */
export function wizardSecrets(f: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, field] of Object.entries(SECRET_FIELDS)) {
    const on = key.startsWith('discovery.') ? f.chapAuthDiscovery === 'true' : f.chapAuthSession === 'true';
    if (on && f[field]) out[key] = f[field]!;
  }
  return out;
}

/** AttachInput fields → the form field an engine problem is shown beside. */
/** Engine field of AttachInput → the wizard field its problem is shown at. */
const FIELD_OF: Record<AttachField, string> = {
  volName: 'volName',
  portals: 'targetPortal',
  iqn: 'iqn',
  lun: 'lun',
  initIface: 'iscsiInterface',
  initiatorName: 'initiatorName',
  fsType: 'fsType',
  mountOptions: 'fsType',
};

/**
 * Errors by form field: the engine's attach input check (the same one flags and manifests get:
 * strict iSCSI names, portals, iface, LUN range), shown per field, plus what only a form has
 * (required fields, CHAP pairs).
 */
export function validateWizard(f: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  const input = wizardInput(f);
  for (const [field, p] of Object.entries(attachInputProblems(input)))
    errors[FIELD_OF[field as AttachField]] ??= p.problem;
  const extra = input.portals.slice(1);
  const badExtra = extra.find((p) => portalProblem(p) !== undefined);
  if (badExtra !== undefined) {
    errors.portals = `bad portal ${badExtra} (${portalProblem(badExtra)})`;
    if (!portalProblem(input.portals[0] ?? '')) delete errors.targetPortal;
  }
  if (!f.targetPortal?.trim()) errors.targetPortal = 'required';
  if (!f.iqn?.trim()) errors.iqn = 'required';
  if (!f.volName?.trim()) errors.volName = 'required (names the kubelet global dir)';
  // Asked, never assumed (a filesystem already on the LUN is mounted as it is): the form has no default.
  if (f.block !== 'true' && f.mount !== 'true' && f.mount !== 'false')
    errors.mount = 'choose yes or no (space)';
  if (f.chapAuthDiscovery === 'true' && (!f.discoveryUser || !f.discoverySecret))
    errors.discoveryUser = 'discovery CHAP needs user and secret';
  if (f.chapAuthSession === 'true' && (!f.sessionUser || !f.sessionSecret))
    errors.sessionUser = 'session CHAP needs user and secret';
  const chap = chapValuesProblem(wizardSecrets(f));
  if (chap) errors[chap.startsWith('discovery.') ? 'discoveryUser' : 'sessionUser'] ??= chap;
  return errors;
}
