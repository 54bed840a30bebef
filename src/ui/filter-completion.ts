/**
 * Field-name completion for the `/` prompt and the `:` palette (`:sessions hea` ⇥ `:sessions
 * health=`), from each view's filter fields (filter.ts FILTER_FIELDS, also listed in `?` help), so
 * an admin never has to guess a field's name and an unknown one is caught as it is typed.
 */
import { completeFilterField, filterFields } from './filter.js';
import { PALETTE } from './keymap.js';

/** Completions of the filter's last word as a field of `view` (`hea` → `health=`). */
export function filterCompletions(text: string, view: string): string[] {
  return completeFilterField(text, filterFields(view));
}

/**
 * Completions of a palette line whose first word names a view and whose last word is a field
 * prefix (`sessions st` → `sessions state=`); empty otherwise (the palette then completes the command).
 */
export function paletteFieldCompletions(input: string): string[] {
  const m = /^\s*(\S+)\s+(.*)$/.exec(input);
  if (!m) return [];
  const word = m[1]!.toLowerCase();
  const command = PALETTE.find((c) => c.name === word || c.aliases.includes(word));
  if (!command?.view) return [];
  const rest = m[2]!.replace(/^\//, '');
  const head = input.slice(0, input.length - m[2]!.length) + (m[2]!.startsWith('/') ? '/' : '');
  return filterCompletions(rest, command.view).map((c) => head + c);
}

/** The field names a completion list shows (`health=` → `health`), for the prompt line. */
export function completionNames(completions: readonly string[]): string[] {
  return completions.map((c) => /([a-z][a-z0-9_-]*)=$/i.exec(c)?.[1] ?? c);
}
