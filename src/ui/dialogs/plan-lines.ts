/**
 * The Plan dialog's lines: the engine's one plan rendering (engine/actions/format.ts planLines,
 * the text the CLI prints) laid out for the dialog, and the steps with their live status. The
 * console adds layout only (symbols of a step's status, the override step's list); every command's
 * text comes from the engine.
 */
import {
  type Consent,
  planLines as enginePlanLines,
  overrideLines,
  type PlanLine,
  stepAction,
  stepNumber,
} from '../../app/domain.js';
import type { Plan, StepProgress } from '../../engine/actions/types.js';
import type { Line } from '../components/scroll-text.js';
import type { Tone } from '../theme.js';

const asLine = (l: PlanLine): Line => ({
  text: l.text,
  ...(l.tone ? { tone: l.tone } : {}),
  ...(l.bold ? { bold: true } : {}),
});

/**
 * The plan as the dialog shows it; in the override step (consent asks for the override act and it
 * was requested) the refusals it lifts come first, so the admin reads them right above the prompt.
 */
export function planLines(plan: Plan, consent?: Consent): Line[] {
  const override = consent?.force ? [...overrideLines(consent).map(asLine), { text: '' }] : [];
  return [...override, ...enginePlanLines(plan).map(asLine)];
}

const STATUS_LOOK: Record<StepProgress['status'], { symbol: string; tone: Tone }> = {
  pending: { symbol: '·', tone: 'dim' },
  running: { symbol: '▸', tone: 'accent' },
  done: { symbol: '✓', tone: 'ok' },
  skipped: { symbol: '↷', tone: 'dim' },
  failed: { symbol: '✗', tone: 'bad' },
};

/** The plan's steps with their live status. */
export function progressLines(plan: Plan, steps: readonly StepProgress[]): Line[] {
  return plan.steps.flatMap((s, i) => {
    const p = steps.find((x) => x.stepId === s.id);
    const look = STATUS_LOOK[p?.status ?? 'pending'];
    const dur = p?.durationMs !== undefined ? ` (${p.durationMs} ms)` : '';
    const out: Line[] = [{ text: `${look.symbol} ${stepNumber(i)} ${stepAction(s)}${dur}`, tone: look.tone }];
    if (p?.detail) out.push({ text: `      ${p.detail}`, tone: p.status === 'failed' ? 'bad' : 'dim' });
    return out;
  });
}
