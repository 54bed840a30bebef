/**
 * The Plan dialog: the engine's plan text (exact commands, blast radius, refusals) and the
 * engine's consent for it (engine/actions/consent.ts), phrased as the footer's question. ⏎, y or
 * the typed token starts the run; `o` opens the override step when a refusal can be lifted; tab
 * flips the action's option the console offers in its plan (plan-toggle.ts) and re-plans.
 */
import { answerConsents, type Consent, consentFor } from '../../app/domain.js';
import type { Plan } from '../../engine/actions/types.js';
import { Text } from '../components/safe-text.js';
import { editText, TextInput } from '../components/text-input.js';
import { closeDialog, scroll } from '../context.js';
import { toneColor } from '../theme.js';
import type { UiState } from '../view-store.js';
import { wizardPlanCancelled } from '../wizard/wizard-state.js';
import { startApply } from './apply.js';
import { defineDialog } from './define-dialog.js';
import type { DialogViewProps } from './dialog.js';
import { planLines } from './plan-lines.js';
import { flipToggle, type PlanToggle, toggleLine } from './plan-toggle.js';
import { wrapLine } from './wrap-lines.js';

interface PlanDialog {
  kind: 'plan';
  plan: Plan;
  typed: string;
  error?: string;
  /** The override step is open: the refusals it lifts are listed and its own token is asked. */
  override?: boolean;
  /**
   * The plan (or the override step) has been drawn: only from then on is a key an answer. Keys
   * that came before (`C4⏎` in one burst) are dropped and counted in `dropped`, and the dialog
   * says so: consent is given to a plan on the screen, never to one still to come.
   */
  shown?: boolean;
  dropped?: number;
  /** The action's option this plan offers as a key (tab), and whether it is set. */
  toggle?: PlanToggle;
}

declare module './dialog-types.js' {
  interface DialogStates {
    plan: PlanDialog;
  }
}

/**
 * The engine's consent (engine/actions/consent.ts) for the Plan dialog as it stands: write mode,
 * dry-run, and whether the admin opened the override step. The dialog only phrases it.
 */
function planConsent(s: Pick<UiState, 'write' | 'dryRun'>, d: PlanDialog, hostname: string): Consent {
  return consentFor(d.plan, {
    write: s.write,
    dryRun: s.dryRun,
    hostname,
    override: d.override === true,
    interactive: true,
  });
}

/** The dialog's note on keys typed before the plan was drawn, if any were. */
function droppedNote(d: Pick<PlanDialog, 'dropped'>): string | undefined {
  const n = d.dropped ?? 0;
  if (n === 0) return undefined;
  return `${n} key${n === 1 ? '' : 's'} typed before the plan was shown ${n === 1 ? 'was' : 'were'} ignored`;
}

/** Keys in one read: each character of text, or the one special key (⏎, arrows). */
function keyCount(input: string): number {
  return Math.max(1, [...input].length);
}

/**
 * Home/End, and `g`/`G` (less, k9s) while nothing is typed in the answer field, go to the plan's
 * start or end (its refusals and commands are read before the answer): they are text only when the
 * token to type starts with that letter (a hostname `gpu-7`).
 */
function endKey(
  s: Pick<UiState, 'write' | 'dryRun'>,
  d: PlanDialog,
  hostname: string,
  input: string,
  key: { home?: boolean; end?: boolean; ctrl?: boolean; meta?: boolean },
): boolean {
  if (key.home || key.end) return true;
  if ((input !== 'g' && input !== 'G') || key.ctrl || key.meta || d.typed !== '') return false;
  const { ask } = planConsent(s, d, hostname);
  const token = ask.kind === 'typed' || ask.kind === 'override' ? ask.token : '';
  return !token.toLowerCase().startsWith('g');
}

/** What the dialog's footer says when nothing can be applied (the console's words for `blocked`). */
function blockedText(b: NonNullable<Consent['blocked']>): string {
  switch (b.kind) {
    case 'read-only':
      return `${b.reason} · type :write first`;
    case 'dry-run':
      return `${b.reason} (:dry-run toggles)`;
    case 'needs-override':
      // The key first: at 80 columns the reason's end is cut, never the way on.
      return `o overrides · ${b.reason}`;
    default:
      return b.reason;
  }
}

export const planDialog = defineDialog('plan', {
  typing: true,
  onKey(ctx, d, input, key) {
    const s = ctx.ui.getState();
    if (key.escape) {
      if (wizardPlanCancelled(ctx, d.plan)) return;
      closeDialog(ctx, { flash: { text: `${d.plan.title} cancelled`, tone: 'warn' } });
      return;
    }
    if (key.upArrow || key.downArrow || key.pageUp || key.pageDown) {
      scroll(ctx, key);
      return;
    }
    if (endKey(s, d, ctx.hostname, input, key)) {
      ctx.ui.setState({ detailScroll: key.home || input === 'g' ? 0 : (ctx.scrollMax ?? 0) });
      return;
    }
    if (!d.shown) {
      ctx.ui.setState({ dialog: { ...d, typed: '', dropped: (d.dropped ?? 0) + keyCount(input) } });
      return;
    }
    if (key.tab && d.toggle) {
      flipPlan(ctx, d, d.toggle);
      return;
    }
    const consent = planConsent(s, d, ctx.hostname);
    if (consent.blocked?.kind === 'needs-override') {
      // The override is its own step: the plain token typed here is not consent to override.
      if (input === 'o' && !key.ctrl && !key.meta) {
        // The override step is a new question: it too is answered only once it is on the screen.
        ctx.ui.setState({
          dialog: { ...d, override: true, typed: '', error: undefined, shown: false, dropped: 0 },
          detailScroll: 0,
        });
      } else if (key.return) {
        ctx.ui.setState({
          dialog: {
            ...d,
            typed: '',
            error: 'refused: nothing typed here applies it; o opens the override step',
          },
        });
      }
      return;
    }
    if (consent.blocked) {
      if (key.return || input === 'q' || input === 'n') closeDialog(ctx);
      return;
    }
    const { ask } = consent;
    if (ask.kind === 'typed' || ask.kind === 'override') {
      if (key.return) {
        if (answerConsents(ask, d.typed)) startApply(ctx, d.plan, consent.force);
        else
          ctx.ui.setState({
            dialog: { ...d, typed: '', error: `does not match: type ${ask.token} exactly` },
          });
        return;
      }
      const next = editText(d.typed, input, key);
      if (next !== undefined) ctx.ui.setState({ dialog: { ...d, typed: next, error: undefined } });
      return;
    }
    if (ask.kind === 'none' && key.return) {
      startApply(ctx, d.plan, consent.force);
      return;
    }
    // y/N: only an explicit y applies; Enter, n and anything else keep the default (No).
    if (input === 'y' || input === 'Y') {
      startApply(ctx, d.plan, consent.force);
      return;
    }
    if (input === 'n' || input === 'N' || key.return)
      closeDialog(ctx, { flash: { text: `${d.plan.title} cancelled`, tone: 'warn' } });
  },
  onShown: (d) => (d.shown ? undefined : { ...d, shown: true }),
  title: (d) => ` Plan: ${d.plan.title} `,
  tone: (d) => (d.plan.risk === 'high' ? 'bad' : d.plan.risk === 'medium' ? 'warn' : 'accent'),
  footer: (p) => <PlanFooter {...p} />,
  lines: (p) => {
    const note = droppedNote(p.d);
    const planned = planLines(p.d.plan, planConsent(p, p.d, p.hostname), p.bodyWidth, p.backend.actions);
    const lines = p.d.toggle
      ? [
          ...wrapLine(toggleLine(p.d.toggle), p.bodyWidth).map((text) => ({ text, tone: 'accent' as const })),
          { text: '' },
          ...planned,
        ]
      : planned;
    // First, where the eye lands: the footer's field may be too narrow to hold it too.
    return note ? [{ text: `✗ ${note}`, tone: 'bad', bold: true }, { text: '' }, ...lines] : lines;
  },
});

/**
 * Re-plans with the toggle flipped, on the node as it is now. The new plan is a new question: the
 * answer typed so far and an open override step are dropped, and keys count only once it is drawn.
 */
function flipPlan(ctx: Parameters<(typeof planDialog)['onKey']>[0], d: PlanDialog, t: PlanToggle): void {
  try {
    const { plan, toggle } = flipToggle(ctx.backend, t, ctx.ui.getState().write);
    ctx.ui.setState({
      dialog: { ...d, plan, toggle, typed: '', error: undefined, override: false, shown: false, dropped: 0 },
      detailScroll: 0,
    });
  } catch (e) {
    ctx.ui.setState({ dialog: { ...d, typed: '', error: (e as Error).message } });
  }
}

/** The engine's consent phrased as the footer: why nothing can run, the token to type, or y/N. */
function PlanFooter(p: DialogViewProps<PlanDialog>) {
  const { d, theme, hostname } = p;
  const { blocked, ask } = planConsent(p, d, hostname);
  const note = droppedNote(d);
  if (blocked)
    return (
      <Text color={toneColor(theme, d.error || note ? 'bad' : 'warn')} wrap="truncate">
        {`${d.error ?? note ?? blockedText(blocked)} · esc closes`}
      </Text>
    );
  if (ask.kind === 'typed' || ask.kind === 'override')
    return (
      <TextInput
        label={
          ask.kind === 'override'
            ? `Type ${ask.token} to override ${ask.refusals.length === 1 ? 'this refusal' : `these ${ask.refusals.length} refusals`} and apply (esc cancels):`
            : `Type ${ask.token} to apply on ${hostname} (esc cancels):`
        }
        value={d.typed}
        focused
        width={p.bodyWidth}
        theme={theme}
        error={d.error ?? note}
      />
    );
  const noted = note ? <Text color={toneColor(theme, 'bad')}>{`  ✗ ${note}`}</Text> : null;
  if (ask.kind === 'none') return <Text wrap="truncate">⏎ apply · esc cancel{noted}</Text>;
  return (
    <Text wrap="truncate" bold>
      {`Apply on ${hostname}? [y/N]`}
      {noted}
    </Text>
  );
}
