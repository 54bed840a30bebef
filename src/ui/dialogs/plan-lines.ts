/**
 * The Plan dialog's lines: the engine's one plan rendering (engine/actions/format.ts planLines,
 * the text the CLI prints) laid out for the dialog, and the steps with their live status. The
 * console adds layout only (symbols of a step's status, the override step's list, wrapping to the
 * dialog's width); every command's text comes from the engine. Nothing is cut: a line wider than
 * the dialog wraps (wrap-lines.ts), a command between its words, so `--logout` and `-o delete` read
 * in full at 80 columns. IQNs are never shortened here: the admin reads the exact argv.
 */
import {
  type Consent,
  planLines as enginePlanLines,
  hintFor,
  overrideLines,
  type PlanLine,
  type SurfaceAction,
  stepAction,
  stepNumber,
} from '../../app/domain.js';
import type { Plan, StepProgress } from '../../engine/actions/types.js';
import type { Line } from '../components/scroll-text.js';
import type { Tone } from '../theme.js';
import { wrapLine } from './wrap-lines.js';

/** One engine line as the dialog's lines: wrapped to `width` (0: as it is), tone and weight on every piece. */
const asLines = (l: PlanLine, width: number): Line[] =>
  wrapLine(l.text, width, { command: l.command === true }).map((text) => ({
    text,
    ...(l.tone ? { tone: l.tone } : {}),
    ...(l.bold ? { bold: true } : {}),
  }));

/** Any dialog's lines wrapped to `width` (the outcome's error, hint and verification read in full; a line marked `command` breaks between words only). */
export function wrapLines(lines: readonly Line[], width: number): Line[] {
  return lines.flatMap((l) =>
    wrapLine(l.text, width, { command: l.command === true }).map((text) => ({ ...l, text })),
  );
}

/**
 * The plan as the dialog shows it, wrapped to `width` cells (the dialog's inner width; 0 leaves
 * lines as they are). In the override step (consent asks for the override act and it was
 * requested) the refusals it lifts come first, so the admin reads them right above the prompt.
 * The dialog's scroll range is this list's length, so every wrapped piece is reachable.
 */
export function planLines(
  plan: Plan,
  consent?: Consent,
  width = 0,
  /** The console's actions: hints and warnings then speak their keys, not the CLI's flags. */
  actions?: readonly SurfaceAction[],
): Line[] {
  const override = consent?.force
    ? [...overrideLines(consent).flatMap((l) => asLines(l, width)), { text: '' }]
    : [];
  const hint = actions ? (t: string) => hintFor(t, 'console', actions) : undefined;
  return [...override, ...enginePlanLines(plan, hint).flatMap((l) => asLines(l, width))];
}

const STATUS_LOOK: Record<StepProgress['status'], { symbol: string; tone: Tone }> = {
  pending: { symbol: '·', tone: 'dim' },
  running: { symbol: '▸', tone: 'accent' },
  done: { symbol: '✓', tone: 'ok' },
  skipped: { symbol: '↷', tone: 'dim' },
  failed: { symbol: '✗', tone: 'bad' },
};

/** The plan's steps with their live status, wrapped to `width` like the plan (0: unwrapped). */
export function progressLines(plan: Plan, steps: readonly StepProgress[], width = 0): Line[] {
  return plan.steps.flatMap((s, i) => {
    const p = steps.find((x) => x.stepId === s.id);
    const look = STATUS_LOOK[p?.status ?? 'pending'];
    const dur = p?.durationMs !== undefined ? ` (${p.durationMs} ms)` : '';
    const command = Boolean(s.argv || s.write || p?.ran);
    // A step that ran shows its commands as they ran (a dynamic step's device is known only then).
    const actions = p?.ran && p.ran.length > 0 ? p.ran : [stepAction(s)];
    const out: Line[] = actions.flatMap((a, k) =>
      wrapLine(`${k === 0 ? `${look.symbol} ${stepNumber(i)}` : '     '} ${a}`, width, { command }).map(
        (text) => ({
          text,
          tone: look.tone,
        }),
      ),
    );
    // The duration follows the command on its last line, or on a line of its own when that is full.
    if (dur) {
      const last = out[out.length - 1]!;
      if (width <= 0 || [...last.text].length + dur.length <= width) last.text += dur;
      else out.push({ text: `     ${dur.trim()}`, tone: look.tone });
    }
    if (p?.detail) {
      const tone = p.status === 'failed' ? 'bad' : 'dim';
      for (const text of wrapLine(`      ${p.detail}`, width)) out.push({ text, tone });
    }
    return out;
  });
}
