/**
 * The engine's plan text (`planLines`, the lines the console's Plan dialog lays out) as the CLI
 * prints it: each line wrapped to the terminal so nothing an admin consents to runs off the edge,
 * with the console's own wrapping rule (src/ui/dialogs/wrap-lines.ts: a command breaks between its
 * words and ends each broken line in ` \`, so it still pastes into a shell as the exact command).
 */
import type { Consent } from '../engine/actions/consent.js';
import { overrideLines, type PlanLine, planLines } from '../engine/actions/format.js';
import type { Plan } from '../engine/actions/types.js';
import { wrapLine } from '../ui/dialogs/wrap-lines.js';
import type { Output } from './command.js';

/** Below this a wrapped plan is less readable than an unwrapped one. */
const MIN_WIDTH = 40;

/**
 * The width to wrap to: the terminal's (`process.stdout.columns`, when stdout is one), else
 * `$COLUMNS` (a pipe into less, a script that says its width), else 80.
 */
export function outputWidth(out: Pick<Output, 'columns'>, env: NodeJS.ProcessEnv): number {
  const fromEnv = Number(env.COLUMNS);
  const w = out.columns ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80);
  return Math.max(MIN_WIDTH, w);
}

/** Lines of plan text, each wrapped to `width`, as one string. */
export function wrappedText(lines: readonly PlanLine[], width: number): string {
  return `${lines.flatMap((l) => wrapLine(l.text, width, { command: l.command === true })).join('\n')}\n`;
}

/** A plan as the CLI prints it, wrapped to `width`. */
export function planText(plan: Plan, width: number): string {
  return wrappedText(planLines(plan), width);
}

/** What the override act lifts, wrapped to `width`. */
export function overrideText(consent: Consent, width: number): string {
  return wrappedText(overrideLines(consent), width);
}
