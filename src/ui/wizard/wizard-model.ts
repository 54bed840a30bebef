/**
 * The attach wizard's state and what is derived from it (the rows of a step, where the cursor
 * goes), shared by the key handling (wizard-state.ts), the node requests (listing.ts) and the pane.
 */

import type { DiscoveredTarget } from '../../app/backend.js';
import { DEFAULT_IFACE } from '../../app/domain.js';
import type { ListedLun, Plan, StepProgress } from '../../engine/actions/types.js';
import type { DispatchContext } from '../context.js';
import { stepOf, type WizardField, type WizardStepId } from './steps.js';

/** Which target a LUN listing belongs to: `iqn|portal|iface` as typed. */
export function lunKeyOf(f: Record<string, string>): string {
  return `${f.iqn?.trim() ?? ''}|${f.targetPortal?.trim() ?? ''}|${f.iscsiInterface?.trim() || DEFAULT_IFACE}`;
}

export interface WizardState {
  kind: 'wizard';
  step: WizardStepId;
  fields: Record<string, string>;
  /** Index into the step's items (its list's rows, then its fields). */
  focus: number;
  errors: Record<string, string>;
  status?: string;
  /** What the last discovery of `listedFor` offered: the target step's list; the plan names the records it creates. */
  listed?: DiscoveredTarget[];
  listedFor?: string;
  /** The LUNs listed for `for` (`iqn|portal|iface`). */
  luns?: { for: string; list: ListedLun[]; note?: string };
  /** The listing's plan (a temporary login), shown for consent. */
  lunPlan?: { for: string; plan: Plan };
  /** The listing's plan while it runs. */
  lunRun?: { for: string; steps: StepProgress[] };
  /** The admin chose to type the LUN instead of listing. */
  lunManual?: boolean;
  /** Discovery with CHAP: the listing's plan for `for` (`portal|iface`), shown for consent. */
  targetPlan?: { for: string; plan: Plan };
  /** That plan while it runs. */
  targetRun?: { for: string; steps: StepProgress[] };
  /** The listing plan last drawn: `y` consents only to a plan that is on the screen (typeahead). */
  planShown?: Plan;
  /** A listing plan (LUNs or CHAP discovery) is running: its stop switch and the quit question. */
  listingStop?: ListingStop;
}

/** What stops a running listing between steps (never mid-command); it then undoes itself. */
interface ListingStop {
  controller: AbortController;
  /** "Stop after the current step?" is asked (ctrl-c, q). */
  ask: boolean;
  /** The admin (or SIGTERM/SIGHUP) asked it to stop. */
  requested: boolean;
  /** Leave the console once the listing has stopped (SIGTERM, SIGHUP). */
  quitAfter: boolean;
  /** A stop waits for the plan's end, which undoes it (the CHAP discovery: see listing.ts). */
  runToEnd: boolean;
}

/** Which portal a discovery with CHAP belongs to: `portal|iface` as typed. */
export function discoveryKeyOf(f: Record<string, string>): string {
  return `${f.targetPortal?.trim() ?? ''}|${f.iscsiInterface?.trim() || DEFAULT_IFACE}`;
}

/** One row the cursor can be on: a listed target/LUN, or a field. */
type WizardItem = { kind: 'pick'; index: number } | { kind: 'field'; field: WizardField };

/** The list shown on a step (targets on `target`, LUNs on `luns`), when there is one. */
export function stepList(w: WizardState): readonly (DiscoveredTarget | ListedLun)[] {
  if (w.step === 'target') return w.listedFor === w.fields.targetPortal?.trim() ? (w.listed ?? []) : [];
  if (w.step === 'luns') return w.luns && w.luns.for === lunKeyOf(w.fields) ? w.luns.list : [];
  return [];
}

export function stepItems(w: WizardState): WizardItem[] {
  const picks = stepList(w).map((_, index) => ({ kind: 'pick' as const, index }));
  const fields = stepOf(w.step).fields.map((field) => ({ kind: 'field' as const, field }));
  return [...picks, ...fields];
}

/** The listing plan waits for the admin's answer (y runs it, m types the LUN instead). */
export function awaitingListing(w: WizardState): boolean {
  return (
    w.step === 'luns' &&
    !w.lunManual &&
    w.lunRun === undefined &&
    w.lunPlan !== undefined &&
    w.lunPlan.for === lunKeyOf(w.fields) &&
    stepList(w).length === 0
  );
}

/** The discovery plan waits for the admin's answer (y runs it, esc drops it). */
export function awaitingTargets(w: WizardState): boolean {
  return (
    w.step === 'discovery' &&
    w.targetRun === undefined &&
    w.targetPlan !== undefined &&
    w.targetPlan.for === discoveryKeyOf(w.fields)
  );
}

/** The listing plan the step shows instead of its rows (waiting for `y`, or running), if any. */
export function stepPlan(w: WizardState): { plan: Plan; steps?: StepProgress[] } | undefined {
  if (w.step === 'luns' && w.lunPlan && (awaitingListing(w) || w.lunRun))
    return { plan: w.lunPlan.plan, ...(w.lunRun ? { steps: w.lunRun.steps } : {}) };
  if (w.step === 'discovery' && w.targetPlan && (awaitingTargets(w) || w.targetRun))
    return { plan: w.targetPlan.plan, ...(w.targetRun ? { steps: w.targetRun.steps } : {}) };
  return undefined;
}

export function setWizard(ctx: DispatchContext, w: WizardState): void {
  ctx.ui.setState({ dialog: w });
}

/** The wizard as it is now (it may have moved on, or closed, while a command ran). */
export function currentWizard(ctx: DispatchContext): WizardState | undefined {
  const d = ctx.ui.getState().dialog;
  return d?.kind === 'wizard' ? d : undefined;
}

/**
 * Where the cursor starts on a step: on the listed target or LUN the fields already name (from a
 * selected row, a manifest, or an earlier pass), else the first disk LUN, else the first row.
 */
function startFocus(w: WizardState): number {
  const list = stepList(w);
  if (w.step === 'target') {
    const at = list.findIndex((t) => 'iqn' in t && t.iqn === w.fields.iqn?.trim());
    if (at >= 0) return at;
    return w.fields.iqn?.trim() ? list.length : 0;
  }
  if (w.step === 'luns') {
    const disk = (l: DiscoveredTarget | ListedLun) => !('iqn' in l) && (l.type === undefined || l.type === 0);
    const at = list.findIndex((l) => disk(l) && 'lun' in l && String(l.lun) === w.fields.lun?.trim());
    return at >= 0 ? at : Math.max(0, list.findIndex(disk));
  }
  return 0;
}

/** The step at `step` with the cursor on its first error (or where startFocus puts it). */
export function goTo(w: WizardState, step: WizardStepId, errors: Record<string, string> = {}): WizardState {
  const next: WizardState = { ...w, step, errors, focus: 0 };
  const bad = Object.keys(errors)[0];
  next.focus = bad
    ? Math.max(
        0,
        stepItems(next).findIndex((i) => i.kind === 'field' && i.field.id === bad),
      )
    : startFocus(next);
  return next;
}

/** The listing plan waiting for `y`, if any (the LUN listing's or the CHAP discovery's). */
export function pendingListingPlan(w: WizardState): Plan | undefined {
  if (awaitingListing(w)) return w.lunPlan?.plan;
  if (awaitingTargets(w)) return w.targetPlan?.plan;
  return undefined;
}
