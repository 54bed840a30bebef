/**
 * The attach wizard's state and keys: one step at a time (steps.ts), ⏎ checks the step and moves
 * on, esc goes back one step (and closes the wizard from the first). Each step's errors put the
 * cursor on the first field at fault. Secrets stay in this state only until apply and are drawn
 * as a fixed-width mask.
 */
import type { Key } from 'ink';
import type { Selection } from '../../app/backend.js';
import type { Plan } from '../../engine/actions/types.js';
import { editText } from '../components/text-input.js';
import { closeDialog, type DispatchContext } from '../context.js';
import { fieldsFromInput, fieldsFromSecrets, validateWizard, wizardInput, wizardSecrets } from './fields.js';
import { discover, enterLuns, listingRunKey, runLunListing, runTargetListing } from './listing.js';
import { fixStatus, mountQuestion } from './mount-question.js';
import { prefillFromSelection } from './prefill.js';
import { stepIndex, stepOf, stepOfField, WIZARD_STEPS, type WizardStepId } from './steps.js';
import {
  awaitingListing,
  awaitingTargets,
  goTo,
  pendingListingPlan,
  setWizard,
  stepItems,
  stepList,
  type WizardState,
} from './wizard-model.js';

export type { WizardState };

/**
 * No LUN by default: the admin picks one from the listing (or types it). No Format+mount either:
 * it is asked (mount-question.ts), never assumed.
 */
const DEFAULTS: Record<string, string> = {
  readOnly: 'false',
  block: 'false',
  chapAuthDiscovery: 'false',
  chapAuthSession: 'false',
  keepOnFailure: 'false',
};

/**
 * Opens the wizard: the values a failed attach (or a cancelled plan) left, else a new one
 * pre-filled from `selected`, the row an action would apply to (session, device, volume or record).
 */
export function openWizard(ctx: DispatchContext, selected?: Selection): WizardState {
  const draft = ctx.ui.getState().wizardDraft;
  if (draft)
    return {
      ...draft,
      step: 'volume',
      focus: 0,
      errors: {},
      lunRun: undefined,
      status: 'values kept from the last attach that did not succeed (esc goes back a step; ctrl-c discards)',
    };
  const pre = prefillFromSelection(ctx, selected);
  return {
    kind: 'wizard',
    step: 'portal',
    fields: { ...DEFAULTS, ...pre.fields },
    focus: 0,
    errors: {},
    ...(pre.from ? { status: `pre-filled from ${pre.from}: ⏎ keeps each step as it is` } : {}),
  };
}

/** Esc on the attach plan: back to the wizard's last step, values kept. True when it handled it. */
export function wizardPlanCancelled(ctx: DispatchContext, plan: Plan): boolean {
  const draft = ctx.ui.getState().wizardDraft;
  if (plan.action !== 'attach' || !draft) return false;
  ctx.ui.setState({
    mode: 'wizard',
    dialog: { ...draft, step: 'volume', focus: 0, status: 'plan cancelled: nothing was run' },
    wizardDraft: undefined,
    pendingSecrets: undefined,
    attachTarget: undefined,
  });
  return true;
}

export { validateWizard, wizardInput, wizardSecrets };

/** Errors of the given step's fields only. */
function stepErrors(step: WizardStepId, fields: Record<string, string>): Record<string, string> {
  const all = validateWizard(fields);
  const own = new Set(stepOf(step).fields.map((f) => f.id));
  return Object.fromEntries(Object.entries(all).filter(([k]) => own.has(k)));
}

/** ⏎: check this step, then move on (running discovery or the LUN listing on the way). */
function advance(ctx: DispatchContext, w: WizardState): void {
  const errors = stepErrors(w.step, w.fields);
  if (Object.keys(errors).length > 0) {
    setWizard(ctx, { ...goTo(w, w.step, errors), status: fixStatus(w, errors) });
    return;
  }
  switch (w.step) {
    case 'portal':
      setWizard(ctx, { ...goTo(w, 'discovery'), status: '⏎ asks the portal for its targets' });
      return;
    case 'discovery':
      void discover(ctx, w);
      return;
    case 'target':
      enterLuns(ctx, w);
      return;
    case 'luns':
      setWizard(ctx, { ...goTo(w, 'volume'), status: mountQuestion(w) });
      return;
    case 'volume':
      planWizard(ctx, w);
      return;
  }
}

function back(ctx: DispatchContext, w: WizardState): void {
  const i = stepIndex(w.step);
  if (i === 0) {
    ctx.ui.setState({ mode: 'normal', dialog: undefined, wizardDraft: undefined });
    return;
  }
  // Nothing to undo: the LUN listing logs its temporary session out and deletes its record itself.
  setWizard(ctx, { ...goTo(w, WIZARD_STEPS[i - 1]!.id), lunManual: false, status: undefined });
}

/** Picks the listed target or LUN under the cursor; false when it cannot be picked. */
function pick(ctx: DispatchContext, w: WizardState, index: number): WizardState | undefined {
  const row = stepList(w)[index];
  if (!row) return undefined;
  if ('iqn' in row)
    return { ...w, fields: { ...w.fields, iqn: row.iqn }, errors: {}, status: `target ${row.iqn}` };
  if (row.type !== undefined && row.type !== 0) {
    setWizard(ctx, {
      ...w,
      status: `LUN ${row.lun} is not a disk (SCSI type ${row.type}${row.type === 12 ? ': a storage controller' : ''})`,
    });
    return undefined;
  }
  return {
    ...w,
    fields: { ...w.fields, lun: String(row.lun) },
    errors: {},
    status: row.inUse ? `LUN ${row.lun} is in use: ${row.inUse}` : `LUN ${row.lun}`,
  };
}

/** Rows PgUp/PgDn move: about one screen of the list at 80×24, where the list shows ~11 rows. */
const WIZARD_PAGE = 10;

/**
 * Where PgUp/PgDn/Home/End put the cursor in a step's list (a portal may offer thousands of
 * targets: each must be reachable without thousands of ↓), clamped, never wrapping; undefined for
 * other keys. Home goes to the first row; End to the last listed row, and from there to the last field.
 */
function pageFocus(w: WizardState, count: number, key: Key): number | undefined {
  const picks = stepList(w).length;
  const last = count - 1;
  if (key.pageDown) return Math.min(last, w.focus + WIZARD_PAGE);
  if (key.pageUp) return Math.max(0, w.focus - WIZARD_PAGE);
  if (key.home) return 0;
  if (key.end) return picks > 0 && w.focus < picks - 1 ? picks - 1 : last;
  return undefined;
}

/**
 * `y` that reached the wizard before its listing plan was drawn (`⏎y` in one burst): ignored, and
 * the status says so. True when it was.
 */
function typedAhead(ctx: DispatchContext, w: WizardState): boolean {
  const plan = pendingListingPlan(w);
  if (!plan || w.planShown === plan) return false;
  setWizard(ctx, { ...w, status: 'a key typed before the plan was shown was ignored: y runs it' });
  return true;
}

/**
 * A listing plan awaiting consent (LUNs or targets): ↑/↓ move through the plan, `y` runs it unless
 * it was typed before the plan was drawn. True when the key was one of these.
 */
function listingPromptKey(
  ctx: DispatchContext,
  w: WizardState,
  input: string,
  key: Key,
  run: (ctx: DispatchContext, w: WizardState) => Promise<void>,
): boolean {
  if (key.upArrow || key.downArrow) {
    setWizard(ctx, { ...w, focus: Math.max(0, w.focus + (key.upArrow ? -1 : 1)) });
    return true;
  }
  if (input !== 'y' && input !== 'Y') return false;
  if (!typedAhead(ctx, w)) void run(ctx, w);
  return true;
}

/** The wizard once drawn: the listing plan on the screen is the one `y` may consent to. */
export function wizardShown(w: WizardState): WizardState | undefined {
  const plan = pendingListingPlan(w);
  return plan && w.planShown !== plan ? { ...w, planShown: plan } : undefined;
}

/** The wizard's keys, the dialog's `onKey`: ctrl-c leaves it from any step, esc steps back. */
export function wizardKey(ctx: DispatchContext, w: WizardState, input: string, key: Key): void {
  if (w.listingStop) {
    listingRunKey(ctx, w, input, key);
    return;
  }
  if (key.ctrl && input === 'c') {
    closeDialog(ctx);
    return;
  }
  if (key.escape) {
    if (awaitingTargets(w))
      setWizard(ctx, {
        ...w,
        targetPlan: undefined,
        focus: 0,
        status: 'discovery cancelled: nothing was run',
      });
    else back(ctx, w);
    return;
  }
  if (key.ctrl && input === 'l') {
    loadManifest(ctx, w);
    return;
  }
  if (awaitingListing(w)) {
    if (!listingPromptKey(ctx, w, input, key, runLunListing) && (input === 'm' || input === 'M'))
      setWizard(ctx, { ...w, lunManual: true, focus: 0, status: 'type the LUN' });
    return;
  }
  if (w.step === 'luns' && w.lunRun) return;
  if (awaitingTargets(w)) {
    listingPromptKey(ctx, w, input, key, runTargetListing);
    return;
  }
  if (w.step === 'discovery' && w.targetRun) return;
  const items = stepItems(w);
  const item = items[w.focus] ?? items[0]!;
  const paged = pageFocus(w, items.length, key);
  if (paged !== undefined) {
    setWizard(ctx, { ...w, focus: paged });
    return;
  }
  // ↑↓ stop at the first and last field (↑ on the portal never lands on "Secret file"); tab and
  // shift-tab go round, as in any form.
  if (key.upArrow || key.downArrow) {
    setWizard(ctx, {
      ...w,
      focus: Math.max(0, Math.min(items.length - 1, w.focus + (key.upArrow ? -1 : 1))),
    });
    return;
  }
  if (key.tab) {
    setWizard(ctx, { ...w, focus: (w.focus + (key.shift ? items.length - 1 : 1)) % items.length });
    return;
  }
  if (item.kind === 'pick') {
    if (key.return || input === ' ') {
      const next = pick(ctx, w, item.index);
      if (!next) return;
      if (key.return) advance(ctx, next);
      else setWizard(ctx, next);
    } else if (input === 'r' && w.step === 'luns') {
      enterLuns(ctx, { ...w, luns: undefined, lunPlan: undefined });
    }
    return;
  }
  if (key.return) {
    advance(ctx, w);
    return;
  }
  const field = item.field;
  if (field.kind === 'bool') {
    if (input === ' ')
      setWizard(ctx, {
        ...w,
        fields: { ...w.fields, [field.id]: w.fields[field.id] === 'true' ? 'false' : 'true' },
      });
    return;
  }
  typeInField(ctx, w, field.id, input, key);
}

/** A key typed in a text field: the field's new text, and the form's errors as of this edit. */
function typeInField(ctx: DispatchContext, w: WizardState, id: string, input: string, key: Key): void {
  const next = editText(w.fields[id] ?? '', input, key);
  if (next === undefined) return;
  const fields = { ...w.fields, [id]: next };
  const all = validateWizard(fields);
  // Inline: the error of the field being typed in, as soon as it is known; errors shown on other
  // fields go as soon as this edit fixes them (the CHAP secret completes the user/secret pair).
  const errors: Record<string, string> = {};
  for (const k of Object.keys(w.errors)) if (k !== id && all[k]) errors[k] = all[k]!;
  // A CHAP pair half typed is not an error yet: ⏎ says so if it is still half.
  const own = all[id];
  if (own && next && !own.endsWith('needs user and secret')) errors[id] = own;
  setWizard(ctx, { ...w, fields, errors });
}

function loadManifest(ctx: DispatchContext, w: WizardState): void {
  const path = w.fields.manifest?.trim();
  if (!path) {
    setWizard(ctx, { ...goTo(w, 'portal', { manifest: 'enter a file path first' }) });
    return;
  }
  try {
    const m = ctx.backend.loadManifest(path, w.fields.secretFile?.trim() || undefined);
    const loaded = { ...fieldsFromInput(m.input), ...fieldsFromSecrets(m.secrets) };
    const fields = { ...w.fields, ...loaded };
    setWizard(ctx, { ...w, fields, errors: {}, status: `loaded ${path}: ⏎ through each step to check it` });
  } catch (e) {
    setWizard(ctx, { ...goTo(w, 'portal', { manifest: (e as Error).message }) });
  }
}

/** The last step: every field checked (the cursor goes to the first at fault), then the engine's plan. */
function planWizard(ctx: DispatchContext, w: WizardState): void {
  const errors = validateWizard(w.fields);
  const first = WIZARD_STEPS.flatMap((s) => s.fields).find((f) => errors[f.id]);
  if (first) {
    const step = stepOfField(first.id)!;
    setWizard(ctx, { ...goTo(w, step, { [first.id]: errors[first.id]! }), status: fixStatus(w, errors) });
    return;
  }
  try {
    const listed = w.listedFor === w.fields.targetPortal?.trim() ? w.listed : undefined;
    const plan = ctx.backend.planAttach(wizardInput(w.fields, listed), ctx.ui.getState().write);
    ctx.ui.setState({
      wizardDraft: { ...w, lunRun: undefined },
      mode: 'confirm',
      dialog: { kind: 'plan', plan, typed: '' },
      pendingSecrets: wizardSecrets(w.fields),
      attachTarget: { iqn: w.fields.iqn!.trim(), portal: w.fields.targetPortal!.trim() },
    });
  } catch (e) {
    setWizard(ctx, { ...w, status: `plan failed: ${(e as Error).message}` });
  }
}
