/**
 * What the wizard asks of the node on the way: the targets a portal offers (the engine's
 * SendTargets listing, which stores nothing) and the LUNs a target offers (the engine's list-luns:
 * read from the node's own sessions, or a temporary login shown as a plan, consented to with `y`,
 * applied and journaled like any action, and undone by the plan itself). The UI spells no command.
 */

import type { Key } from 'ink';
import { type Consent, consentFor, DEFAULT_IFACE } from '../../app/domain.js';
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
 * Applies a listing plan through the console's backend like any action: tracked in the store's
 * `actions` (and in `ctx.running`, so q, ctrl-c, SIGTERM and SIGHUP ask or stop it between steps
 * instead of leaving mid-plan), journaled, with only the CHAP values it needs. Its progress goes
 * into the wizard while `show` says the run is still the one shown. Resolves with the result and
 * the wizard as it is then (undefined: closed); leaves the console when a quit waited for it.
 */
async function applyListing(
  ctx: DispatchContext,
  plan: Plan,
  secrets: Record<string, string>,
  show: (cur: WizardState, steps: StepProgress[]) => WizardState | undefined,
): Promise<{ result: ApplyResult; cur: WizardState | undefined }> {
  const steps = new Map<string, StepProgress>();
  const controller = new AbortController();
  ctx.running.controller = controller;
  const started = currentWizard(ctx);
  if (started)
    setWizard(ctx, {
      ...started,
      listingStop: {
        controller,
        ask: false,
        requested: false,
        quitAfter: false,
        // The CHAP discovery's record holds credentials until its last step deletes it, and the plan
        // has no rollback: stopping it halfway would leave them. Its few quick commands run to the end.
        runToEnd: plan.action === 'list-targets',
      },
    });
  let result: ApplyResult;
  try {
    result = await ctx.backend.apply(plan, {
      write: ctx.ui.getState().write,
      dryRun: ctx.ui.getState().dryRun,
      secrets,
      signal: controller.signal,
      onProgress: (p) => {
        steps.set(p.stepId, p);
        const cur = currentWizard(ctx);
        const next = cur && show(cur, [...steps.values()]);
        if (next) setWizard(ctx, next);
      },
    });
  } catch (e) {
    result = {
      ok: false,
      steps: [],
      verified: false,
      verification: [],
      error: { message: (e as Error).message },
    };
  } finally {
    if (ctx.running.controller === controller) ctx.running.controller = undefined;
  }
  ctx.backend.refreshNow();
  const cur = currentWizard(ctx);
  if (cur?.listingStop?.quitAfter) {
    ctx.exit();
    return { result, cur: undefined };
  }
  return { result, cur: cur && { ...cur, listingStop: undefined } };
}

const failure = (r: ApplyResult) =>
  `${r.error?.message ?? 'unknown error'}${r.error?.hint ? ` (${r.error.hint})` : ''}`;

/** The engine's consent for a listing plan, as for any plan the console runs (write, dry-run, refusals). */
function listingConsent(ctx: DispatchContext, plan: Plan): Consent {
  const s = ctx.ui.getState();
  return consentFor(plan, { write: s.write, dryRun: s.dryRun, hostname: ctx.hostname, interactive: true });
}

/**
 * A listing plan the consent policy blocks is not applied (read-only, dry-run, refusals): the
 * status says why and what to do instead. True when it is blocked.
 */
function blocked(ctx: DispatchContext, w: WizardState, plan: Plan, instead: string): boolean {
  const b = listingConsent(ctx, plan).blocked;
  if (!b || b.kind === 'empty') return false;
  const why =
    b.kind === 'dry-run'
      ? 'DRY-RUN: the listing would run the plan shown; nothing ran (:dry-run toggles)'
      : b.kind === 'read-only'
        ? `refused: ${b.reason} (type :write first)`
        : `refused: ${plan.refusals.map((r) => r.reason).join('; ')}`;
  setWizard(ctx, { ...w, status: `${why} — ${instead}` });
  return true;
}

/** The status of a listing that did not end well: stopped (and undone) or failed. */
function endedStatus(what: string, r: ApplyResult): string {
  return r.error?.kind === 'interrupted' ? `${what} stopped: ${failure(r)}` : `${what} failed: ${failure(r)}`;
}

/**
 * A key while a listing runs: q and ctrl-c ask "stop after the current step?" (as the Progress
 * dialog does), y stops it there and it undoes itself, n or esc keeps it running; nothing else.
 */
export function listingRunKey(ctx: DispatchContext, w: WizardState, input: string, key: Key): void {
  const stop = w.listingStop;
  if (!stop) return;
  if (stop.ask) {
    if (input === 'y' || input === 'Y') {
      if (!stop.runToEnd) stop.controller.abort();
      setWizard(ctx, { ...w, listingStop: { ...stop, ask: false, requested: true } });
    } else if (input === 'n' || input === 'N' || key.escape)
      setWizard(ctx, { ...w, listingStop: { ...stop, ask: false } });
    return;
  }
  if ((key.ctrl && input === 'c') || input === 'q')
    setWizard(ctx, { ...w, listingStop: { ...stop, ask: true } });
}

/** `y` on the listing plan: apply it (journaled), then list what it found. */
export async function runLunListing(ctx: DispatchContext, w: WizardState): Promise<void> {
  const pending = w.lunPlan;
  if (!pending) return;
  const { plan } = pending;
  if (blocked(ctx, w, plan, 'm types the LUN instead')) return;
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
      status: endedStatus('listing', result),
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
  if (blocked(ctx, w, plan, 'esc, then type the IQN on the next step')) return;
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
      status: endedStatus('discovery', result),
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
