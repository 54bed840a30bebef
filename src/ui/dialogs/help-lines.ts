/** `?` help, generated from the same keymap and action registry that dispatch keys (docs/architecture.md#actions-are-data). */
import type { ActionDef } from '../../engine/actions/types.js';
import type { Line } from '../components/scroll-text.js';
import { FILTER_FIELDS } from '../filter.js';
import { keyCollisions, NAV_KEYS, PALETTE, sortLetters } from '../keymap.js';
import { VIEWS } from '../views/registry.js';
import { wrapLines } from './plan-lines.js';

/**
 * The rows an action acts on, unless its title names them already: "Rescan session", not
 * "Rescan session on session"; "Clean up on session/volume".
 */
export function actionScopeText(a: Pick<ActionDef, 'title' | 'scopes'>): string {
  const title = a.title.toLowerCase();
  const rest = a.scopes.filter((sc) => !title.includes(sc));
  return rest.length ? ` on ${rest.join('/')}` : '';
}

/** `?` help, wrapped to `width` (the dialog's inner width; 0 leaves lines as they are). */
export function helpLines(actions: readonly ActionDef[], write: boolean, width = 0): Line[] {
  return wrapLines(helpText(actions, write), width);
}

function helpText(actions: readonly ActionDef[], write: boolean): Line[] {
  const lines: Line[] = [];
  lines.push({
    text: `Actions on the selection or marked rows${write ? '' : ' (READ-ONLY: destructive ones only show their plan)'}`,
    bold: true,
  });
  if (actions.length === 0) lines.push({ text: '  no actions registered in this build', tone: 'dim' });
  for (const a of actions) {
    const flag = a.destructive ? (write ? ' [destructive]' : ' [destructive: needs --write or :write]') : '';
    lines.push({
      text: `  ${a.key.padEnd(12)} ${a.title}${flag}${actionScopeText(a)}`,
      tone: a.destructive ? 'warn' : undefined,
    });
    lines.push({ text: `  ${''.padEnd(12)} ${a.summary}`, tone: 'dim' });
  }
  for (const c of keyCollisions(actions))
    lines.push({ text: `  ⚠ key collision: ${c} (navigation wins)`, tone: 'bad' });
  lines.push({ text: '' }, { text: 'Navigation', bold: true });
  for (const k of NAV_KEYS) lines.push({ text: `  ${k.label.padEnd(12)} ${k.help}` });
  lines.push({
    text: `  ${`1-${VIEWS.length}`.padEnd(12)} Views: ${VIEWS.map((v) => `${v.key} ${v.id}`).join(', ')}`,
  });
  lines.push({ text: '' }, { text: 'Sort (shift + letter; again reverses; = default order)', bold: true });
  for (const v of VIEWS) {
    const letters = [...sortLetters(v.columns)].map(
      ([l, id]) => `${l} ${v.columns.find((c) => c.id === id)?.title ?? id}`,
    );
    if (letters.length) lines.push({ text: `  ${v.id.padEnd(12)} ${letters.join(' · ')}` });
  }
  lines.push({ text: '' }, { text: 'Commands (:name, tab completes)', bold: true });
  for (const c of PALETTE)
    lines.push({
      text: `  :${c.name.padEnd(11)} ${c.help}${c.aliases.length ? ` (also :${c.aliases.join(' :')})` : ''}`,
    });
  lines.push(
    { text: '' },
    { text: 'Filter (/)', bold: true },
    {
      text: '  words match anywhere; a|b either; field=value (state=FAILED, health=degraded|failed, sid=4)',
    },
    { text: '  field!=value excludes; a leading ! inverts the whole filter; ⏎ keeps it, esc clears it' },
    { text: '  Fields per view:', tone: 'dim' },
    ...Object.entries(FILTER_FIELDS).map(([view, fields]) => ({ text: `    ${view}: ${fields.join(', ')}` })),
  );
  return lines;
}
