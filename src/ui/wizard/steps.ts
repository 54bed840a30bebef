/**
 * The attach wizard's steps and their fields, in the order YaST2 iscsi-client and Anaconda's iSCSI
 * dialog ask: where (portal and iface), discovery (and its CHAP), which target (and session CHAP),
 * which LUN (listed by the engine), how to present it (volume mode, filesystem, read-only, name),
 * then the engine's plan. Fields mirror a Pod's `iscsi` volume source (k8s core/v1
 * ISCSIVolumeSource) plus the CHAP values its Secret holds.
 */

import { MAX_TARGET_LUN } from '../../app/domain.js';

export type WizardStepId = 'portal' | 'discovery' | 'target' | 'luns' | 'volume';

export interface WizardField {
  id: string;
  label: string;
  kind: 'text' | 'bool' | 'secret';
  help: string;
}

export interface WizardStep {
  id: WizardStepId;
  title: string;
  fields: readonly WizardField[];
}

const SPACE = 'space toggles';
const SECRET = 'masked; never shown, logged or journaled';

export const WIZARD_STEPS: readonly WizardStep[] = [
  {
    id: 'portal',
    title: 'Portal',
    fields: [
      { id: 'targetPortal', label: 'Target portal', kind: 'text', help: 'addr[:port], IPv6 as [addr]:port' },
      { id: 'iscsiInterface', label: 'iSCSI iface', kind: 'text', help: 'open-iscsi iface (empty: default)' },
      { id: 'portals', label: 'Extra portals', kind: 'text', help: 'comma-separated, for multipath' },
      {
        id: 'initiatorName',
        label: 'Initiator name',
        kind: 'text',
        help: 'custom initiator IQN (kubelet clones the iface); empty: the node’s',
      },
      {
        id: 'manifest',
        label: 'Manifest file',
        kind: 'text',
        help: 'Pod or PV YAML with an iscsi volume: ctrl-l fills every step from it',
      },
      {
        id: 'secretFile',
        label: 'Secret file',
        kind: 'text',
        help: 'Secret YAML with the CHAP values (optional)',
      },
    ],
  },
  {
    id: 'discovery',
    title: 'Discovery',
    fields: [
      { id: 'chapAuthDiscovery', label: 'Discovery CHAP', kind: 'bool', help: SPACE },
      {
        id: 'discoveryUser',
        label: 'Discovery user',
        kind: 'text',
        help: 'discovery.sendtargets.auth.username',
      },
      { id: 'discoverySecret', label: 'Discovery secret', kind: 'secret', help: SECRET },
    ],
  },
  {
    id: 'target',
    title: 'Target',
    fields: [
      {
        id: 'iqn',
        label: 'Target IQN',
        kind: 'text',
        help: 'iqn.YYYY-MM.reverse.domain:name or eui.<16 hex>',
      },
      { id: 'chapAuthSession', label: 'Session CHAP', kind: 'bool', help: SPACE },
      { id: 'sessionUser', label: 'Session user', kind: 'text', help: 'node.session.auth.username' },
      { id: 'sessionSecret', label: 'Session secret', kind: 'secret', help: SECRET },
    ],
  },
  {
    id: 'luns',
    title: 'LUN',
    fields: [
      {
        id: 'lun',
        label: 'LUN',
        kind: 'text',
        help: `0-${MAX_TARGET_LUN}, or pick one above (the Kubernetes API takes 0-255; kubelet finds no LUN ≥ 256's by-path link)`,
      },
    ],
  },
  {
    id: 'volume',
    title: 'Volume',
    fields: [
      {
        id: 'volName',
        label: 'Volume name',
        kind: 'text',
        help: 'PV name or the Pod volume name (kubelet spec.Name(): names the global dir)',
      },
      {
        id: 'block',
        label: 'Block volume',
        kind: 'bool',
        help: 'volumeMode: Block (no filesystem); space toggles',
      },
      { id: 'fsType', label: 'fsType', kind: 'text', help: 'ext4, xfs, ... (empty: ext4, as kubelet)' },
      {
        id: 'readOnly',
        label: 'Read-only',
        kind: 'bool',
        help: 'mounted ro, never formatted; space toggles',
      },
      {
        id: 'mount',
        label: 'Format+mount',
        kind: 'bool',
        help: 'format only if blank and mount on the kubelet global dir, as kubelet does',
      },
      {
        id: 'keepOnFailure',
        label: 'Keep on failure',
        kind: 'bool',
        help: 'a failed attach leaves its session, records and iface for inspection (default: removed again)',
      },
    ],
  },
];

/** Every field of every step (the form as one list). */
export const WIZARD_FIELDS: readonly WizardField[] = WIZARD_STEPS.flatMap((s) => s.fields);

export function stepOf(id: WizardStepId): WizardStep {
  return WIZARD_STEPS.find((s) => s.id === id)!;
}

export function stepIndex(id: WizardStepId): number {
  return WIZARD_STEPS.findIndex((s) => s.id === id);
}

/** The step a field belongs to. */
export function stepOfField(field: string): WizardStepId | undefined {
  return WIZARD_STEPS.find((s) => s.fields.some((f) => f.id === field))?.id;
}

/** Fixed-width stand-in for a secret: says whether one is set, never how long it is. */
export const SECRET_MASK = '••••••••';
