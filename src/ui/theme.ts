/**
 * Colours and symbols in one place. State is never carried by colour alone:
 * every verdict/health has a symbol and a word, so the no-colour theme loses nothing.
 */
import type { Health, Verdict } from '../engine/model.js';
import type { Severity } from '../engine/snapshot/problems.js';

export interface Theme {
  /** False for NO_COLOR / --no-color: every colour below is then undefined. */
  color: boolean;
  accent?: string;
  dim?: string;
  ok?: string;
  warn?: string;
  bad?: string;
  /** Background of the READ-ONLY/WRITE badges (inverse video is used without colour). */
  writeBg?: string;
  readOnlyBg?: string;
}

export const COLOR_THEME: Theme = {
  color: true,
  accent: 'cyan',
  dim: 'gray',
  ok: 'green',
  warn: 'yellow',
  bad: 'red',
  writeBg: 'red',
  readOnlyBg: 'blue',
};

export const MONO_THEME: Theme = { color: false };

/** Picks the theme: `--no-color` and a non-empty NO_COLOR both mean no colours (no-color.org). */
export function themeFor(noColor: boolean): Theme {
  return noColor ? MONO_THEME : COLOR_THEME;
}

export type Tone = 'ok' | 'warn' | 'bad' | 'dim' | 'accent' | undefined;

export function toneColor(theme: Theme, tone: Tone): string | undefined {
  return tone ? theme[tone] : undefined;
}

/**
 * The one look of each severity of the engine's problems rule (src/engine/snapshot/problems.ts):
 * the summary line, the tables' PROBLEMS/REASON cells, the verdict and health columns and the
 * outage banner all draw a state with these, so a state never reads red in one place and yellow
 * in another. Red is kept for what fails I/O; what is left over or waits is yellow.
 */
export const SEVERITY_LOOK: Record<Severity, { symbol: string; tone: Tone }> = {
  failed: { symbol: '✗', tone: 'bad' },
  degraded: { symbol: '!', tone: 'warn' },
  outage: { symbol: '↯', tone: 'warn' },
  stale: { symbol: '△', tone: 'warn' },
  orphaned: { symbol: '○', tone: 'warn' },
  warning: { symbol: '·', tone: 'warn' },
  ok: { symbol: '✓', tone: 'ok' },
};

export const VERDICT_LOOK: Record<Verdict, { symbol: string; tone: Tone }> = {
  'in-use': { symbol: '●', tone: 'ok' },
  foreign: { symbol: '◆', tone: 'accent' },
  orphaned: SEVERITY_LOOK.orphaned,
  outage: SEVERITY_LOOK.outage,
  stale: SEVERITY_LOOK.stale,
  claimed: { symbol: '◇', tone: 'accent' },
};

export const HEALTH_LOOK: Record<Health, { symbol: string; tone: Tone }> = {
  ok: SEVERITY_LOOK.ok,
  degraded: SEVERITY_LOOK.degraded,
  failed: SEVERITY_LOOK.failed,
};

/** Tone for a sysfs session/device state word. */
export function stateTone(state: string | undefined): Tone {
  if (!state) return 'dim';
  if (state === 'LOGGED_IN' || state === 'running' || state === 'up') return 'ok';
  if (state === 'FAILED' || state.includes('offline') || state === 'failed' || state === 'down') return 'bad';
  return 'warn';
}

/** Tone of a problem cell (REASON, PROBLEMS) by the engine's severity (problems.ts). */
export function problemTone(severity: Severity): Tone {
  // An ok cell is empty space, not news: dim rather than green.
  return severity === 'ok' ? 'dim' : SEVERITY_LOOK[severity].tone;
}

/**
 * A view's tab in the tab bar, the same width active or not: with colours the active one is drawn
 * in inverse video; without (NO_COLOR, --no-color: chalk then drops inverse and bold too) it is
 * bracketed, so the active view is marked in plain text as well.
 */
export function tabLabel(index: number, view: string, active: boolean, theme: Theme): string {
  const text = `${index + 1} ${view}`;
  return active && !theme.color ? `[${text}]` : ` ${text} `;
}
