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

export const VERDICT_LOOK: Record<Verdict, { symbol: string; tone: Tone }> = {
  'in-use': { symbol: '●', tone: 'ok' },
  foreign: { symbol: '◆', tone: 'accent' },
  orphaned: { symbol: '○', tone: 'warn' },
  outage: { symbol: '↯', tone: 'warn' },
  stale: { symbol: '✗', tone: 'bad' },
  claimed: { symbol: '◇', tone: 'accent' },
};

export const HEALTH_LOOK: Record<Health, { symbol: string; tone: Tone }> = {
  ok: { symbol: '✓', tone: 'ok' },
  degraded: { symbol: '!', tone: 'warn' },
  failed: { symbol: '✗', tone: 'bad' },
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
  if (severity === 'failed') return 'bad';
  return severity === 'ok' ? 'dim' : 'warn';
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
