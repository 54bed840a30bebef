/** The Outcome dialog: how the run ended, each step, what was verified, and the journal entry. */
import { hintFor, type SurfaceAction } from '../../app/domain.js';
import type { ApplyResult, Plan } from '../../engine/actions/types.js';
import type { Line } from '../components/scroll-text.js';
import { type DispatchContext, scrollOrClose } from '../context.js';
import { switchView, type UiState } from '../view-store.js';
import { defineDialog } from './define-dialog.js';
import { progressLines, wrapLines } from './plan-lines.js';

interface OutcomeDialog {
  kind: 'outcome';
  plan: Plan;
  result: ApplyResult;
}

declare module './dialog-types.js' {
  interface DialogStates {
    outcome: OutcomeDialog;
  }
}

/** After a successful attach: the new session's detail (the wizard ends there). */
function attachedDetail(ctx: DispatchContext): Partial<UiState> {
  const s = ctx.ui.getState();
  const t = s.attachTarget;
  const snap = ctx.backend.store.getState().snapshot;
  const found =
    t &&
    snap?.sessions.find(
      (x) => x.targetIqn === t.iqn && (x.portal === t.portal || x.portal.startsWith(`${t.portal}:`)),
    );
  if (!found) return { attachTarget: undefined };
  return { ...switchView(s, 'sessions'), detail: found.key, detailScroll: 0, attachTarget: undefined };
}

/** How the run ended, its steps, what was verified, and where the journal has it. */
function outcomeLines(d: OutcomeDialog, width: number, actions: readonly SurfaceAction[]): Line[] {
  const r = d.result;
  return wrapLines(
    [
      {
        text: r.ok ? `✓ ${d.plan.title} succeeded` : `✗ ${d.plan.title} failed`,
        tone: r.ok ? ('ok' as const) : ('bad' as const),
        bold: true,
      },
      ...(r.error
        ? [
            {
              text: `error: ${r.error.message}${r.error.exitName ? ` (${r.error.exitName})` : ''}`,
              tone: 'bad' as const,
            },
          ]
        : []),
      ...(r.error?.hint
        ? [{ text: `hint: ${hintFor(r.error.hint, 'console', actions)}`, tone: 'warn' as const }]
        : []),
      { text: '' },
      ...progressLines(d.plan, r.steps, width),
      // A failed plan was never verified: no empty "Not verified:" heading (the error says why).
      ...(r.ok || r.verification.length > 0
        ? [
            { text: '' },
            {
              text: r.verified ? 'Verified:' : 'Not verified:',
              bold: true,
              tone: r.verified ? ('ok' as const) : ('warn' as const),
            },
            ...r.verification.map((v) => ({ text: `  ${v}` })),
          ]
        : []),
      ...(r.journalId ? [{ text: `journal: ${r.journalId} (view 7)`, tone: 'dim' as const }] : []),
    ],
    width,
  );
}

/** Closing drops a detail whose row is gone, and after an attach shows the new session. */
function afterClose(ctx: DispatchContext, d: OutcomeDialog): Partial<UiState> {
  const s = ctx.ui.getState();
  const extra: Partial<UiState> = {};
  if (s.detail !== undefined && !ctx.rows.some((r) => r.key === s.detail)) extra.detail = undefined;
  if (d.plan.action === 'attach' && d.result.ok) Object.assign(extra, attachedDetail(ctx));
  return extra;
}

export const outcomeDialog = defineDialog('outcome', {
  onKey: scrollOrClose(['q', '?'], afterClose),
  title: (d) => ` ${d.result.ok ? 'Done' : 'Failed'}: ${d.plan.title} `,
  tone: (d) => (d.result.ok ? 'ok' : 'bad'),
  footer: () => '⏎/esc closes',
  lines: (p) => outcomeLines(p.d, p.bodyWidth, p.backend.actions),
});
