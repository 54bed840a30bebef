/**
 * What the wizard asks of the node on the way: the targets a portal offers (the engine's
 * SendTargets listing, which stores nothing) and the LUNs a target offers (the engine's list-luns:
 * read from the node's own sessions, or a temporary login shown as a plan, consented to with `y`,
 * applied and journaled like any action, and undone by the plan itself). The UI spells no command.
 */
import type { ListLunsInput } from '../../engine/actions/list-luns.js';
import type { DispatchContext } from '../dispatch.js';
import { wizardSecrets } from './fields.js';
import { currentWizard, goTo, lunKeyOf, setWizard, type WizardState } from './wizard-model.js';

export { lunKeyOf };

function listInput(f: Record<string, string>): ListLunsInput {
  const secrets = wizardSecrets(f);
  return {
    portal: f.targetPortal?.trim() ?? '',
    iqn: f.iqn?.trim() ?? '',
    iface: f.iscsiInterface?.trim() || 'default',
    chapSession: f.chapAuthSession === 'true',
    secretKeys: Object.keys(secrets).filter((k) => k.startsWith('node.session.')),
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
    toTarget(
      'discovery CHAP: the attach plan runs that discovery with the credentials; type the target IQN here',
    );
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

/** `y` on the listing plan: apply it (journaled), then list what it found. */
export async function runLunListing(ctx: DispatchContext, w: WizardState): Promise<void> {
  const pending = w.lunPlan;
  if (!pending) return;
  const { plan } = pending;
  const write = ctx.ui.getState().write;
  if (plan.refusals.length > 0) {
    setWizard(ctx, {
      ...w,
      status: `refused: ${plan.refusals.map((r) => r.reason).join('; ')} — m types the LUN instead`,
    });
    return;
  }
  const secrets = Object.fromEntries(
    Object.entries(wizardSecrets(w.fields)).filter(([k]) => k.startsWith('node.session.')),
  );
  setWizard(ctx, { ...w, lunRun: { for: pending.for, steps: [] }, status: 'listing LUNs…' });
  const steps = new Map<string, import('../../engine/actions/types.js').StepProgress>();
  const result = await ctx.backend.apply(plan, {
    write,
    secrets,
    onProgress: (p) => {
      steps.set(p.stepId, p);
      const cur = currentWizard(ctx);
      if (cur?.lunRun?.for === pending.for)
        setWizard(ctx, { ...cur, lunRun: { ...cur.lunRun, steps: [...steps.values()] } });
    },
  });
  ctx.backend.refreshNow();
  const cur = currentWizard(ctx);
  if (!cur) return; // closed meanwhile: the plan has undone itself all the same
  const base: WizardState = { ...cur, lunRun: undefined };
  if (!result.ok) {
    setWizard(ctx, {
      ...base,
      lunPlan: undefined,
      lunManual: true,
      focus: 0,
      status: `listing failed: ${result.error?.message ?? 'unknown error'}${result.error?.hint ? ` (${result.error.hint})` : ''}`,
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
