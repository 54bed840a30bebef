/**
 * What the wizard asks of the node on the way: the targets a portal offers (the engine's
 * SendTargets listing, which stores nothing) and the LUNs a target offers (the engine's list-luns:
 * read from the node's own sessions, or a temporary login shown as a plan, consented to with `y`,
 * applied and journaled like any action, and undone by the plan itself). The UI spells no command.
 */

import { DEFAULT_IFACE } from '../../app/domain.js';
import type { ListLunsInput } from '../../engine/actions/list-luns.js';
import type { ApplyResult, Plan, StepProgress } from '../../engine/actions/types.js';
import type { DispatchContext } from '../context.js';
import { wizardSecrets } from './fields.js';
import {
  currentWizard,
  discoveryKeyOf,
  goTo,
  lunKeyOf,
  setWizard,
  type WizardState,
} from './wizard-model.js';

export { lunKeyOf };

/** The CHAP keys with a value whose names start with `prefix` (names only). */
function secretKeysOf(f: Record<string, string>, prefix: string): string[] {
  return Object.keys(wizardSecrets(f)).filter((k) => k.startsWith(prefix));
}

/** The CHAP values whose keys start with `prefix`, for one listing's apply. */
function secretsOf(f: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(wizardSecrets(f)).filter(([k]) => k.startsWith(prefix)));
}

function listInput(f: Record<string, string>): ListLunsInput {
  return {
    portal: f.targetPortal?.trim() ?? '',
    iqn: f.iqn?.trim() ?? '',
    iface: f.iscsiInterface?.trim() || DEFAULT_IFACE,
    ...(f.initiatorName?.trim() ? { initiatorName: f.initiatorName.trim() } : {}),
    chapSession: f.chapAuthSession === 'true',
    secretKeys: secretKeysOf(f, 'node.session.'),
  };
}

/** The discovery step's ⏎: ask the portal for its targets, then the target step lists them. */
export async function discover(ctx: DispatchContext, w: WizardState): Promise<void> {
  const portal = w.fields.targetPortal?.trim() ?? '';
  const toTarget = (status: string, extra: Partial<WizardState> = {}) => {
    const cur = currentWizard(ctx);
    if (cur && cur.step === 'discovery') setWizard(ctx, { ...goTo({ ...cur, ...extra }, 'target'), status });
  };
  if (w.fields.chapAuthDiscovery === 'true') {
    if (!ctx.backend.planListTargets) {
      toTarget('discovery with CHAP is not available in this build: type the target IQN');
      return;
    }
    try {
      const plan = ctx.backend.planListTargets(
        {
          portal,
          iface: w.fields.iscsiInterface?.trim() || DEFAULT_IFACE,
          secretKeys: secretKeysOf(w.fields, 'discovery.'),
        },
        ctx.ui.getState().write,
      );
      setWizard(ctx, {
        ...w,
        targetPlan: { for: discoveryKeyOf(w.fields), plan },
        focus: 0,
        status: undefined,
      });
    } catch (e) {
      setWizard(ctx, { ...w, status: `cannot list targets: ${(e as Error).message}` });
    }
    return;
  }
  if (!ctx.backend.discover) {
    toTarget('discovery is not available in this build: type the target IQN');
    return;
  }
  // The listing stores nothing (-o nonpersistent), but it does log in to the portal: WRITE mode only.
  if (!ctx.ui.getState().write) {
    toTarget('READ-ONLY: discovery talks to the target (:write first); type the target IQN');
    return;
  }
  setWizard(ctx, { ...w, status: `discovering ${portal}…` });
  try {
    const found = await ctx.backend.discover(portal);
    toTarget(
      found.length > 0
        ? `${found.length} target${found.length === 1 ? '' : 's'} offered by ${portal}: ⏎ picks one`
        : `${portal} offered no targets: type the target IQN`,
      { listed: found, listedFor: portal },
    );
  } catch (e) {
    const cur = currentWizard(ctx);
    if (cur) setWizard(ctx, { ...cur, status: `discovery failed: ${(e as Error).message}` });
  }
}

/** The target step's ⏎: the LUN step, with the listing (known LUNs, or its plan to consent to). */
export function enterLuns(ctx: DispatchContext, w: WizardState): void {
  const key = lunKeyOf(w.fields);
  if ((w.luns?.for === key || w.lunPlan?.for === key) && !w.lunManual) {
    setWizard(ctx, { ...goTo(w, 'luns'), status: undefined });
    return;
  }
  if (!ctx.backend.listLuns) {
    setWizard(ctx, {
      ...goTo(w, 'luns'),
      lunManual: true,
      status: 'LUN listing is not available: type the LUN',
    });
    return;
  }
  try {
    const listing = ctx.backend.listLuns(listInput(w.fields), ctx.ui.getState().write);
    if (listing.kind === 'known') {
      setWizard(ctx, {
        ...goTo(
          { ...w, luns: { for: key, list: listing.luns, note: listing.note }, lunManual: false },
          'luns',
        ),
        status: undefined,
      });
      return;
    }
    setWizard(ctx, {
      ...goTo({ ...w, lunPlan: { for: key, plan: listing.plan }, lunManual: false }, 'luns'),
      status: undefined,
    });
  } catch (e) {
    setWizard(ctx, {
      ...goTo(w, 'luns'),
      lunManual: true,
      status: `cannot list LUNs: ${(e as Error).message}`,
    });
  }
}

/**
 * Applies a listing plan through the console's backend (journaled, tracked like any action) with
 * only the CHAP values it needs; its progress goes into the wizard while `running` says the run is
 * still the one shown. Resolves with the result and the wizard as it is then (undefined: closed).
 */
async function applyListing(
  ctx: DispatchContext,
  plan: Plan,
  secrets: Record<string, string>,
  show: (cur: WizardState, steps: StepProgress[]) => WizardState | undefined,
): Promise<{ result: ApplyResult; cur: WizardState | undefined }> {
  const steps = new Map<string, StepProgress>();
  const result = await ctx.backend.apply(plan, {
    write: ctx.ui.getState().write,
    dryRun: ctx.ui.getState().dryRun,
    secrets,
    onProgress: (p) => {
      steps.set(p.stepId, p);
      const cur = currentWizard(ctx);
      const next = cur && show(cur, [...steps.values()]);
      if (next) setWizard(ctx, next);
    },
  });
  ctx.backend.refreshNow();
  return { result, cur: currentWizard(ctx) };
}

const failure = (r: ApplyResult) =>
  `${r.error?.message ?? 'unknown error'}${r.error?.hint ? ` (${r.error.hint})` : ''}`;

/** A listing plan with refusals is not applied: the status says why and what to do instead. */
function refused(ctx: DispatchContext, w: WizardState, plan: Plan, instead: string): boolean {
  if (plan.refusals.length === 0) return false;
  setWizard(ctx, { ...w, status: `refused: ${plan.refusals.map((r) => r.reason).join('; ')} — ${instead}` });
  return true;
}

/** `y` on the listing plan: apply it (journaled), then list what it found. */
export async function runLunListing(ctx: DispatchContext, w: WizardState): Promise<void> {
  const pending = w.lunPlan;
  if (!pending) return;
  const { plan } = pending;
  if (refused(ctx, w, plan, 'm types the LUN instead')) return;
  setWizard(ctx, { ...w, lunRun: { for: pending.for, steps: [] }, status: 'listing LUNs…' });
  const { result, cur } = await applyListing(ctx, plan, secretsOf(w.fields, 'node.session.'), (c, steps) =>
    c.lunRun?.for === pending.for ? { ...c, lunRun: { ...c.lunRun, steps } } : undefined,
  );
  if (!cur) return; // closed meanwhile: the plan has undone itself all the same
  const base: WizardState = { ...cur, lunRun: undefined };
  if (!result.ok) {
    setWizard(ctx, {
      ...base,
      lunPlan: undefined,
      lunManual: true,
      focus: 0,
      status: `listing failed: ${failure(result)}`,
    });
    return;
  }
  const list = result.luns ?? [];
  const disks = list.filter((l) => l.type === undefined || l.type === 0);
  const next: WizardState = {
    ...base,
    luns: {
      for: pending.for,
      list,
      note: 'listed by a temporary login, now logged out; its node record is deleted',
    },
    lunPlan: undefined,
    status: disks.length > 0 ? '⏎ picks a LUN' : 'the target offers no disk LUN',
  };
  // The cursor on the LUN already named, else the first disk (tgt's LUN 0 is a controller).
  setWizard(ctx, cur.step === 'luns' ? { ...goTo(next, 'luns'), status: next.status } : next);
}

/** `y` on the discovery plan (CHAP): apply it (journaled), then the target step lists what it found. */
export async function runTargetListing(ctx: DispatchContext, w: WizardState): Promise<void> {
  const pending = w.targetPlan;
  if (!pending) return;
  const { plan } = pending;
  if (refused(ctx, w, plan, 'esc, then type the IQN on the next step')) return;
  const portal = w.fields.targetPortal?.trim() ?? '';
  setWizard(ctx, {
    ...w,
    targetRun: { for: pending.for, steps: [] },
    status: `discovering ${portal} with CHAP…`,
  });
  const { result, cur } = await applyListing(ctx, plan, secretsOf(w.fields, 'discovery.'), (c, steps) =>
    c.targetRun?.for === pending.for ? { ...c, targetRun: { ...c.targetRun, steps } } : undefined,
  );
  if (!cur) return;
  const base: WizardState = { ...cur, targetRun: undefined, targetPlan: undefined };
  if (!result.ok) {
    setWizard(ctx, {
      ...base,
      status: `discovery failed: ${failure(result)}`,
    });
    return;
  }
  const found = result.targets ?? [];
  const next: WizardState = { ...base, listed: found, listedFor: portal };
  const status =
    found.length > 0
      ? `${found.length} target${found.length === 1 ? '' : 's'} offered by ${portal}: ⏎ picks one`
      : `${portal} offered no targets: type the target IQN`;
  setWizard(ctx, cur.step === 'discovery' ? { ...goTo(next, 'target'), status } : next);
}
