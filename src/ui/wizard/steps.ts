/**
 * The attach wizard's steps and their fields, in the order YaST2 iscsi-client and Anaconda's iSCSI
 * dialog ask: where (portal and iface), discovery (and its CHAP), which target (and session CHAP),
 * which LUN (listed by the engine), how to present it (volume mode, filesystem, read-only, name),
 * then the engine's plan. Which fields each step asks is said here; what a field is (label, kind,
 * meaning) is the engine's attach parameter table (engine/actions/attach-params.ts), which also
 * makes `attach --help`.
 */

import { type AttachParam, attachParamOfField } from '../../app/domain.js';

export type WizardStepId = 'portal' | 'discovery' | 'target' | 'luns' | 'volume';

export interface WizardField {
  id: string;
  label: string;
  kind: 'text' | 'bool' | 'secret';
  help: string;
  /** The engine's value for an empty field (iface `default`, fsType `ext4`), shown in the field. */
  default?: string;
}

interface WizardStep {
  id: WizardStepId;
  title: string;
  fields: readonly WizardField[];
}

/** The form's own keys on a field, said first (the help line is cut at the pane's width). */
const KEYS: Readonly<Record<string, string>> = {
  manifest: 'ctrl-l fills every step from this file',
  lun: 'pick one above or type it',
};

/** The help line under a focused field: its keys, its meaning (the engine's words), what empty stands for. */
function formHelp(p: AttachParam): string {
  if (p.kind === 'secret') return `${p.help}: masked; never shown, logged or journaled`;
  const keys = p.kind === 'bool' ? 'space toggles' : KEYS[p.field ?? ''];
  return [keys, p.help, p.default !== undefined ? `empty: ${p.default}` : undefined]
    .filter((x) => x !== undefined)
    .join('; ');
}

function step(id: WizardStepId, title: string, fields: readonly string[]): WizardStep {
  return {
    id,
    title,
    fields: fields.map((f) => {
      const p = attachParamOfField(f);
      return {
        id: f,
        label: p.label ?? f,
        kind: p.kind ?? 'text',
        help: formHelp(p),
        ...(p.default !== undefined ? { default: p.default } : {}),
      };
    }),
  };
}

export const WIZARD_STEPS: readonly WizardStep[] = [
  step('portal', 'Portal', [
    'targetPortal',
    'iscsiInterface',
    'portals',
    'initiatorName',
    'manifest',
    'secretFile',
  ]),
  step('discovery', 'Discovery', ['chapAuthDiscovery', 'discoveryUser', 'discoverySecret']),
  step('target', 'Target', ['iqn', 'chapAuthSession', 'sessionUser', 'sessionSecret']),
  step('luns', 'LUN', ['lun']),
  step('volume', 'Volume', ['volName', 'block', 'fsType', 'readOnly', 'mount', 'keepOnFailure']),
];

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
