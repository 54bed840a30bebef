/**
 * The footer's key hints fitted to the terminal's width, never cut mid-word: each hint is shown
 * whole or not at all (a list, the filter's fields, is cut between its words). When they do not
 * fit, the hints take their short forms, then the least needed for the view go first (highest
 * `rank`), and `? help` says `? all keys`: help lists every key, so a hint the footer leaves out
 * is one key away.
 */

import type { ActionDef } from '../engine/actions/types.js';

export interface Hint {
  /** `c cleanup`. */
  text: string;
  /** A shorter form for narrow terminals (`␣ mark`); the text when absent. */
  short?: string;
  /** 0 for the keys the current view needs most; the highest rank leaves first. */
  rank: number;
  /**
   * A list after a label (`tab fields: state verdict health`): cut between its words, with `…`,
   * to the room left, rather than left out.
   */
  list?: boolean;
}

const SEP = ' · ';
/**
 * `? help`, never left out: the way to every key the footer leaves out, so it says `? all keys`
 * then. Absent while typing a filter or a command, where `?` is a character.
 */
const HELP: Hint = { text: '? help', short: '? all keys', rank: -1 };

const cells = (s: string): number => [...s].length;
const joined = (texts: readonly string[]) => texts.join(SEP);

/** The list hint cut between its words to `room` cells, ending in `…`; undefined if no word fits. */
function cutList(text: string, room: number): string | undefined {
  const words = text.split(' ');
  for (let n = words.length - 1; n >= 2; n--) {
    const cut = `${words.slice(0, n).join(' ')} …`;
    if (cells(cut) <= room) return cut;
  }
  return undefined;
}

/** Hints in their order, in short forms and the lowest-needed left out until they fit `width`. */
export function fitHints(hints: readonly Hint[], width: number): string {
  const full = joined(hints.map((h) => h.text));
  if (cells(full) <= width) return full;
  const kept = [...hints];
  // Leaving order: highest rank first, the later of equal ranks first; help never.
  const leaving = hints
    .filter((h) => h !== HELP)
    .sort((a, b) => b.rank - a.rank || hints.indexOf(b) - hints.indexOf(a));
  for (;;) {
    const texts = kept.map((h) => h.short ?? h.text);
    if (cells(joined(texts)) <= width) return joined(texts);
    const list = kept.findIndex((h) => h.list);
    if (list >= 0) {
      const others = joined(texts.filter((_, i) => i !== list));
      const cut = cutList(texts[list]!, width - cells(others) - cells(SEP));
      if (cut !== undefined) return joined([...texts.slice(0, list), cut, ...texts.slice(list + 1)]);
    }
    const next = leaving.shift();
    if (!next) return texts.filter((t) => cells(t) <= width)[0] ?? '';
    kept.splice(kept.indexOf(next), 1);
  }
}

/** An action's hint: `c cleanup`, short `x delete` for `delete-device`. */
function actionHint(a: Pick<ActionDef, 'key' | 'id'>, rank: number): Hint {
  const word = a.id.split('-')[0]!;
  return { text: `${a.key} ${a.id}`, ...(word !== a.id ? { short: `${a.key} ${word}` } : {}), rank };
}

/**
 * A list view's hints: ⏎ where the row opens something, then the view's actions (what the
 * operator came for), then filter and quit; the view switches, marks and JSON leave first.
 */
export function listHints(actions: readonly Pick<ActionDef, 'key' | 'id'>[], opens: boolean): Hint[] {
  return [
    ...(opens ? [{ text: '⏎ detail', rank: 0 }] : []),
    { text: '/ filter', rank: 2 },
    { text: ': view', rank: 4 },
    { text: 'space mark', short: '␣ mark', rank: 6 },
    ...actions.map((a) => actionHint(a, 1)),
    { text: '[ ] views', short: '[] views', rank: 5 },
    { text: 'y json', rank: 7 },
    HELP,
    { text: 'q quit', rank: 3 },
  ];
}

/** A detail's hints: the way back and the actions first. */
export function detailHints(actions: readonly Pick<ActionDef, 'key' | 'id'>[]): Hint[] {
  return [
    { text: '↑↓ scroll', rank: 2 },
    { text: 'esc back', rank: 0 },
    { text: 'y json', rank: 3 },
    ...actions.map((a) => actionHint(a, 1)),
    HELP,
  ];
}

/** While typing a filter: keep and clear first, then the fields tab completes (`next`) or all (`fields`). */
export function filterHints(next: readonly string[], fields: readonly string[]): Hint[] {
  return [
    { text: 'field=value', rank: 2 },
    { text: '!invert', rank: 3 },
    { text: '⏎ keep', rank: 0 },
    { text: 'esc clear', rank: 0 },
    ...(fields.length
      ? [{ text: `tab ${next.length ? 'completes' : 'fields'}: ${fields.join(' ')}`, rank: 1, list: true }]
      : []),
  ];
}

export const COMMAND_HINTS: readonly Hint[] = [
  { text: 'tab complete', rank: 1 },
  { text: '↑↓ choose', rank: 2 },
  { text: '⏎ run', rank: 0 },
  { text: 'esc cancel', rank: 0 },
];
