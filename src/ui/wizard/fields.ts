/**
 * The wizard's form fields ↔ the engine's AttachInput. Manifests are read by the engine
 * (engine/actions/manifest.ts) and input rules are the engine's (attachProblems); this module only
 * maps between the form and the input, and puts each engine problem beside its field. Fields mirror
 * a Pod's `iscsi` volume source (k8s core/v1 ISCSIVolumeSource) plus the CHAP values its Secret holds.
 */
import { type AttachInput, attachProblems } from '../../engine/actions/attach.js';

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
    lun: /^\d+$/.test(f.lun?.trim() ?? '') ? Number(f.lun) : Number.NaN,
    mode: f.block === 'true' ? 'block' : 'filesystem',
    fsType: f.fsType?.trim() || 'ext4',
    readOnly: f.readOnly === 'true',
    initIface: f.iscsiInterface?.trim() || 'default',
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
const FIELD_OF: Partial<Record<keyof AttachInput, string>> = {
  iqn: 'iqn',
  lun: 'lun',
  volName: 'volName',
  initIface: 'iscsiInterface',
  initiatorName: 'initiatorName',
  fsType: 'fsType',
};

/** Errors by form field: required fields and CHAP pairs here, every input rule from the engine. */
export function validateWizard(f: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  const input = wizardInput(f);
  const problems = attachProblems(input);
  for (const [k, p] of Object.entries(problems) as [
    keyof AttachInput,
    { message: string; hint?: string },
  ][]) {
    const field = FIELD_OF[k];
    if (field) errors[field] = p.hint ? `${p.message}: ${p.hint}` : p.message;
  }
  if (problems.portals) {
    const first = attachProblems({ ...input, portals: [input.portals[0]!] }).portals;
    errors[first ? 'targetPortal' : 'portals'] = problems.portals.message;
  }
  if (!/^\d+$/.test(f.lun?.trim() ?? ''))
    errors.lun = `not a number: ${attachProblems({ ...input, lun: -1 }).lun?.hint}`;
  if (!f.targetPortal?.trim()) errors.targetPortal = 'required';
  if (!f.iqn?.trim()) errors.iqn = 'required';
  if (!f.volName?.trim()) errors.volName = 'required (names the kubelet global dir)';
  if (f.chapAuthDiscovery === 'true' && (!f.discoveryUser || !f.discoverySecret))
    errors.discoveryUser = 'discovery CHAP needs user and secret';
  if (f.chapAuthSession === 'true' && (!f.sessionUser || !f.sessionSecret))
    errors.sessionUser = 'session CHAP needs user and secret';
  return errors;
}
