/**
 * The attach wizard's state and keys. Fields mirror a Pod's `iscsi` volume source (k8s
 * core/v1 ISCSIVolumeSource) plus the CHAP values its Secret would hold; secrets stay in this
 * state only long enough to be passed to apply, and are drawn masked.
 */
import type { Key } from 'ink';
import type { DiscoveredTarget } from '../../app/backend.js';
import { parsePortal } from '../../app/domain.js';
import { editText } from '../components/text-input.js';
import type { DispatchContext } from '../context.js';
import { fieldsFromInput, fieldsFromSecrets, validateWizard, wizardInput, wizardSecrets } from './fields.js';

export interface WizardField {
  id: string;
  label: string;
  kind: 'text' | 'bool' | 'secret';
  help: string;
}

export const WIZARD_FIELDS: readonly WizardField[] = [
  {
    id: 'manifest',
    label: 'Manifest file',
    kind: 'text',
    help: 'Pod or PV YAML with an iscsi volume (ctrl-l loads it)',
  },
  { id: 'secretFile', label: 'Secret file', kind: 'text', help: 'Secret YAML with CHAP values (optional)' },
  {
    id: 'volName',
    label: 'Volume name',
    kind: 'text',
    help: 'PV name or the Pod volume name (kubelet spec.Name())',
  },
  {
    id: 'targetPortal',
    label: 'Target portal',
    kind: 'text',
    help: 'addr[:port], IPv6 as [addr]:port (ctrl-d discovers)',
  },
  { id: 'portals', label: 'Extra portals', kind: 'text', help: 'comma-separated, for multipath' },
  { id: 'iqn', label: 'Target IQN', kind: 'text', help: 'iqn.YYYY-MM.reverse.domain:name or eui.<16 hex>' },
  {
    id: 'lun',
    label: 'LUN',
    kind: 'text',
    help: "0-16383 (the Kubernetes API takes 0-255; kubelet finds no LUN ≥ 256's by-path link)",
  },
  { id: 'fsType', label: 'fsType', kind: 'text', help: 'ext4, xfs, ... (empty: kubelet default ext4)' },
  { id: 'readOnly', label: 'readOnly', kind: 'bool', help: 'space toggles' },
  {
    id: 'block',
    label: 'Block volume',
    kind: 'bool',
    help: 'volumeMode: Block (no filesystem); space toggles',
  },
  {
    id: 'mount',
    label: 'Format+mount',
    kind: 'bool',
    help: 'format if empty and mount on the kubelet global dir, as kubelet does',
  },
  { id: 'iscsiInterface', label: 'iSCSI iface', kind: 'text', help: 'open-iscsi iface (default: default)' },
  {
    id: 'initiatorName',
    label: 'Initiator name',
    kind: 'text',
    help: 'custom initiator IQN (kubelet clones the iface)',
  },
  { id: 'chapAuthDiscovery', label: 'Discovery CHAP', kind: 'bool', help: 'space toggles' },
  { id: 'discoveryUser', label: 'Discovery user', kind: 'text', help: 'discovery.sendtargets.auth.username' },
  {
    id: 'discoverySecret',
    label: 'Discovery secret',
    kind: 'secret',
    help: 'masked; never shown or journaled',
  },
  { id: 'chapAuthSession', label: 'Session CHAP', kind: 'bool', help: 'space toggles' },
  { id: 'sessionUser', label: 'Session user', kind: 'text', help: 'node.session.auth.username' },
  { id: 'sessionSecret', label: 'Session secret', kind: 'secret', help: 'masked; never shown or journaled' },
  {
    id: 'keepOnFailure',
    label: 'Keep on failure',
    kind: 'bool',
    help: 'a failed attach leaves its session, node records and iface for inspection (default: removed again)',
  },
];

export interface WizardState {
  kind: 'wizard';
  fields: Record<string, string>;
  focus: number;
  errors: Record<string, string>;
  discovered?: DiscoveredTarget[];
  pick: number;
  status?: string;
  /** What the last discovery of `listedFor` offered: the plan names the records it creates. */
  listed?: DiscoveredTarget[];
  listedFor?: string;
}

/**
 * A new form, or the one a failed attach left (its values, secrets included, live only in the
 * console's memory and are drawn masked).
 */
export function openWizard(draft?: WizardState): WizardState {
  if (draft)
    return {
      ...draft,
      discovered: undefined,
      errors: {},
      status: 'values kept from the last attach that did not succeed (esc discards them)',
    };
  return {
    kind: 'wizard',
    fields: {
      lun: '0',
      readOnly: 'false',
      block: 'false',
      mount: 'false',
      chapAuthDiscovery: 'false',
      chapAuthSession: 'false',
    },
    focus: 3,
    errors: {},
    pick: 0,
  };
}

export { validateWizard, wizardInput, wizardSecrets };

function set(ctx: DispatchContext, w: WizardState): void {
  ctx.ui.setState({ dialog: w });
}

export function wizardKey(ctx: DispatchContext, w: WizardState, input: string, key: Key): void {
  if (w.discovered) {
    if (key.escape) {
      set(ctx, { ...w, discovered: undefined });
      return;
    }
    if (key.upArrow) {
      set(ctx, { ...w, pick: Math.max(0, w.pick - 1) });
      return;
    }
    if (key.downArrow) {
      set(ctx, { ...w, pick: Math.min(w.discovered.length - 1, w.pick + 1) });
      return;
    }
    if (key.return) {
      const t = w.discovered[w.pick];
      if (t)
        set(ctx, {
          ...w,
          discovered: undefined,
          fields: { ...w.fields, iqn: t.iqn },
          status: `picked ${t.iqn}`,
        });
    }
    return;
  }
  if (key.escape) {
    ctx.ui.setState({ mode: 'normal', dialog: undefined, wizardDraft: undefined });
    return;
  }
  const field = WIZARD_FIELDS[w.focus]!;
  if (key.upArrow || (key.tab && key.shift)) {
    set(ctx, { ...w, focus: (w.focus + WIZARD_FIELDS.length - 1) % WIZARD_FIELDS.length });
    return;
  }
  if (key.downArrow || key.tab) {
    set(ctx, { ...w, focus: (w.focus + 1) % WIZARD_FIELDS.length });
    return;
  }
  if (key.ctrl && input === 'd') {
    discover(ctx, w);
    return;
  }
  if (key.ctrl && input === 'l') {
    loadManifest(ctx, w);
    return;
  }
  if (key.return) {
    planWizard(ctx, w);
    return;
  }
  if (field.kind === 'bool') {
    if (input === ' ')
      set(ctx, {
        ...w,
        fields: { ...w.fields, [field.id]: w.fields[field.id] === 'true' ? 'false' : 'true' },
      });
    return;
  }
  const next = editText(w.fields[field.id] ?? '', input, key);
  if (next === undefined) return;
  const fields = { ...w.fields, [field.id]: next };
  const all = validateWizard(fields);
  // Inline: show the error of the field being typed in as soon as it is known.
  const errors = { ...w.errors };
  delete errors[field.id];
  if (all[field.id] && next) errors[field.id] = all[field.id]!;
  set(ctx, { ...w, fields, errors });
}

async function discover(ctx: DispatchContext, w: WizardState): Promise<void> {
  const portal = w.fields.targetPortal?.trim() ?? '';
  if (!parsePortal(portal)) {
    set(ctx, { ...w, errors: { ...w.errors, targetPortal: 'enter a valid portal to discover' } });
    return;
  }
  if (!ctx.backend.discover) {
    set(ctx, { ...w, status: 'discovery is not available in this build' });
    return;
  }
  // The listing stores nothing (-o nonpersistent), but it does log in to the portal: WRITE mode only.
  if (!ctx.ui.getState().write) {
    set(ctx, { ...w, status: 'discovery talks to the target: switch to WRITE mode (:write) first' });
    return;
  }
  set(ctx, { ...w, status: `discovering ${portal}…` });
  try {
    const found = await ctx.backend.discover(portal);
    const cur = ctx.ui.getState().dialog;
    if (cur?.kind !== 'wizard') return;
    set(
      ctx,
      found.length
        ? {
            ...cur,
            discovered: found,
            listed: found,
            listedFor: portal,
            pick: 0,
            status: `${found.length} targets`,
          }
        : { ...cur, status: 'the portal offered no targets' },
    );
  } catch (e) {
    const cur = ctx.ui.getState().dialog;
    if (cur?.kind === 'wizard') set(ctx, { ...cur, status: `discovery failed: ${(e as Error).message}` });
  }
}

function loadManifest(ctx: DispatchContext, w: WizardState): void {
  const path = w.fields.manifest?.trim();
  if (!path) {
    set(ctx, { ...w, errors: { ...w.errors, manifest: 'enter a file path first' } });
    return;
  }
  if (!ctx.backend.loadManifest) {
    set(ctx, { ...w, status: 'manifest loading is not available in this build' });
    return;
  }
  try {
    const m = ctx.backend.loadManifest(path, w.fields.secretFile?.trim() || undefined);
    const loaded = { ...fieldsFromInput(m.input), ...fieldsFromSecrets(m.secrets) };
    const fields = { ...w.fields, ...loaded };
    set(ctx, { ...w, fields, errors: validateWizard(fields), status: `loaded ${path}` });
  } catch (e) {
    set(ctx, { ...w, errors: { ...w.errors, manifest: (e as Error).message } });
  }
}

function planWizard(ctx: DispatchContext, w: WizardState): void {
  const errors = validateWizard(w.fields);
  if (Object.keys(errors).length) {
    set(ctx, { ...w, errors, status: 'fix the marked fields' });
    return;
  }
  if (!ctx.backend.planAttach) {
    set(ctx, { ...w, status: 'attach planning is not available in this build' });
    return;
  }
  try {
    const listed = w.listedFor === w.fields.targetPortal?.trim() ? w.listed : undefined;
    const plan = ctx.backend.planAttach(wizardInput(w.fields, listed), ctx.ui.getState().write);
    ctx.ui.setState({
      wizardDraft: { ...w, discovered: undefined },
      mode: 'confirm',
      dialog: { kind: 'plan', plan, typed: '' },
      pendingSecrets: wizardSecrets(w.fields),
      attachTarget: { iqn: w.fields.iqn!.trim(), portal: w.fields.targetPortal!.trim() },
    });
  } catch (e) {
    set(ctx, { ...w, status: `plan failed: ${(e as Error).message}` });
  }
}
