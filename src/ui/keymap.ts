/**
 * The one keymap: a small table of navigation keys plus the engine's action registry. Dispatch,
 * `?` help and the footer hints are all generated from it (docs/architecture.md#actions-are-data), so they cannot drift apart.
 */
import type { Key } from 'ink';
import type { ActionDef, Scope } from '../engine/actions/types.js';
import { VIEWS, type ViewId, viewForDigit } from './views/registry.js';

export { viewForDigit };

type NavId =
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'top'
  | 'bottom'
  | 'open'
  | 'back'
  | 'filter'
  | 'command'
  | 'help'
  | 'mark'
  | 'unmarkAll'
  | 'sortNext'
  | 'sortPrev'
  | 'sortReverse'
  | 'sortColumn'
  | 'sortDefault'
  | 'refresh'
  | 'probe'
  | 'nextView'
  | 'prevView'
  | 'lastView'
  | 'describe'
  | 'json'
  | 'quit';

interface NavKey {
  id: NavId;
  /** As shown in help and hints. */
  label: string;
  help: string;
  /** Shown in the footer of list views. */
  hint?: string;
  match(input: string, key: Key): boolean;
}

export const NAV_KEYS: readonly NavKey[] = [
  { id: 'up', label: '↑/k', help: 'Move up', match: (i, k) => k.upArrow || (i === 'k' && !k.ctrl) },
  {
    id: 'down',
    label: '↓/j',
    help: 'Move down',
    hint: 'move',
    match: (i, k) => k.downArrow || (i === 'j' && !k.ctrl),
  },
  { id: 'pageUp', label: 'PgUp/ctrl-b', help: 'Page up', match: (i, k) => k.pageUp || (k.ctrl && i === 'b') },
  {
    id: 'pageDown',
    label: 'PgDn/ctrl-f',
    help: 'Page down',
    match: (i, k) => k.pageDown || (k.ctrl && i === 'f'),
  },
  { id: 'top', label: 'g/Home', help: 'First row', match: (i, k) => k.home || i === 'g' },
  { id: 'bottom', label: 'G/End', help: 'Last row', match: (i, k) => k.end || i === 'G' },
  {
    id: 'open',
    label: '⏎',
    help: "Open the selection: a session's detail (Sessions, Targets), a journal entry (Journal)",
    hint: 'detail',
    match: (_i, k) => k.return,
  },
  // k9s `d` describe: the same detail ⏎ opens, for hands that reach for k9s's key.
  {
    id: 'describe',
    label: 'd',
    help: 'Describe: the detail of the selection, as ⏎',
    match: (i) => i === 'd',
  },
  // k9s `y` yaml: here JSON, because `status --json` is the console's machine-readable shape.
  {
    id: 'json',
    label: 'y',
    help: 'The selection as JSON, the same object `status --json` prints',
    match: (i) => i === 'y',
  },
  { id: 'back', label: 'esc', help: 'Back: close detail, dialog or filter', match: (_i, k) => k.escape },
  {
    id: 'filter',
    label: '/',
    help: 'Filter: words, field=value, field!=value, a|b, leading ! inverts; tab completes a field',
    hint: 'filter',
    match: (i) => i === '/',
  },
  {
    id: 'command',
    label: ':',
    help: 'Command palette: views (:sessions :devices ...), :write, :attach, :quit',
    hint: 'cmd',
    match: (i) => i === ':',
  },
  { id: 'help', label: '?', help: 'This help', hint: 'help', match: (i) => i === '?' },
  {
    id: 'mark',
    label: 'space',
    help: 'Mark/unmark the row (actions apply to all marked rows)',
    hint: 'mark',
    match: (i) => i === ' ',
  },
  { id: 'unmarkAll', label: 'ctrl-u', help: 'Clear all marks', match: (i, k) => k.ctrl && i === 'u' },
  // k9s: shift + a column's letter sorts by it, again reverses; the letters are the headers' (sortLetters).
  {
    id: 'sortColumn',
    label: 'A-Z',
    help: "Sort by the column of that letter (shift + the header's letter; again reverses); the view's letters are below",
    match: (i) => /^[A-Z]$/.test(i),
  },
  {
    id: 'sortDefault',
    label: '=',
    help: 'Back to the default order (problems first: worst severity, then longest standing)',
    match: (i) => i === '=',
  },
  { id: 'sortNext', label: '>', help: 'Sort by the next column', match: (i) => i === '>' },
  { id: 'sortPrev', label: '<', help: 'Sort by the previous column', match: (i) => i === '<' },
  { id: 'sortReverse', label: '~', help: 'Reverse the sort order', match: (i) => i === '~' },
  { id: 'refresh', label: 'ctrl-r', help: 'Re-read the node now', match: (i, k) => k.ctrl && i === 'r' },
  // Sends to the network only when pressed: a TCP connect, then a SendTargets that stores nothing.
  {
    id: 'probe',
    label: 'p',
    help: "Probe the down sessions' portals: one that answers makes its sessions stuck, not an outage",
    match: (i, k) => i === 'p' && !k.ctrl && !k.meta,
  },
  // ] [ and → ← as in k9s and lazygit: the neighbouring tab, wrapping at either end.
  {
    id: 'nextView',
    label: 'tab/]/→',
    help: 'Next view (wraps)',
    match: (i, k) => (k.tab && !k.shift) || i === ']' || (k.rightArrow && !k.ctrl && !k.meta),
  },
  {
    id: 'prevView',
    label: 'shift-tab/[/←',
    help: 'Previous view (wraps)',
    match: (i, k) => (k.tab && k.shift) || i === '[' || (k.leftArrow && !k.ctrl && !k.meta),
  },
  { id: 'lastView', label: '-', help: 'Back to the view shown before (like cd -)', match: (i) => i === '-' },
  { id: 'quit', label: 'q', help: 'Quit (asks while an action runs)', hint: 'quit', match: (i) => i === 'q' },
];

export function resolveNav(input: string, key: Key): NavId | undefined {
  return NAV_KEYS.find((n) => n.match(input, key))?.id;
}

/** The action bound to a key, if it applies to this scope. Nav keys win, so actions never shadow them. */
export function resolveAction(
  actions: readonly ActionDef[],
  input: string,
  key: Key,
  scope: Scope | undefined,
): ActionDef | undefined {
  if (key.ctrl || key.meta || input.length !== 1) return undefined;
  const def = actions.find((a) => a.key === input);
  if (!def) return undefined;
  if (def.scopes.includes('node')) return def;
  return scope && def.scopes.includes(scope) ? def : undefined;
}

/** A printable key pressed alone, as Ink reports it: no modifier, no special key. */
export const BARE_KEY: Key = Object.freeze({
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
});

/**
 * Every printable character that navigation takes, asked of NAV_KEYS themselves (and the views'
 * digits), so the collision check cannot drift from the keys the dispatcher resolves.
 */
function navChars(): string[] {
  const out: string[] = [];
  for (let c = 0x20; c < 0x7f; c++) {
    const ch = String.fromCharCode(c);
    if (NAV_KEYS.some((n) => n.match(ch, BARE_KEY)) || viewForDigit(ch) !== undefined) out.push(ch);
  }
  return out;
}

/**
 * The shift-letter that sorts each column: the first letter of its header no column before it
 * took (and never `G`, the last row), so SID is S, STATE (after SID) T... Derived from the
 * headers, so a renamed or added column gets its letter without a table to keep in step.
 */
export function sortLetters(columns: readonly { id: string; title: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of columns) {
    const letter = [...c.title.toUpperCase()].find((ch) => /^[A-Z]$/.test(ch) && ch !== 'G' && !out.has(ch));
    if (letter) out.set(letter, c.id);
  }
  return out;
}

/** Actions whose key collides with a navigation key: reported in help so the registry gets fixed. */
export function keyCollisions(actions: readonly ActionDef[]): string[] {
  const taken = new Set(navChars());
  return actions.filter((a) => taken.has(a.key)).map((a) => `${a.id} uses '${a.key}'`);
}

/** Actions usable on a scope, for the footer; destructive ones are left out while read-only. */
export function actionsFor(
  actions: readonly ActionDef[],
  scope: Scope | undefined,
  write: boolean,
): ActionDef[] {
  return actions.filter(
    (a) =>
      (a.scopes.includes('node') || (scope !== undefined && a.scopes.includes(scope))) &&
      (write || !a.destructive),
  );
}

interface PaletteCommand {
  name: string;
  aliases: string[];
  help: string;
  view?: ViewId;
}

/** Palette commands that are not views (the views' own come from the view registry). */
const COMMANDS: readonly PaletteCommand[] = [
  { name: 'attach', aliases: ['a'], help: 'Attach wizard (log in to a target)' },
  { name: 'write', aliases: ['w', 'rw'], help: 'Allow changes (asks for the hostname)' },
  { name: 'readonly', aliases: ['ro'], help: 'Back to read-only' },
  { name: 'dry-run', aliases: ['dry', 'dryrun'], help: 'Toggle dry-run (plans only, nothing runs)' },
  { name: 'help', aliases: ['h'], help: 'Keys and commands' },
  { name: 'quit', aliases: ['q', 'exit'], help: 'Leave the console' },
];

/** Every `:` command: one per registered view (its id and aliases), then the commands above. */
export const PALETTE: readonly PaletteCommand[] = [
  ...VIEWS.map((v) => ({ name: v.id, aliases: [...v.aliases], help: v.help, view: v.id })),
  ...COMMANDS,
];

/** Palette entries whose name or alias starts with the typed word. */
export function completePalette(text: string): PaletteCommand[] {
  const word = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!word) return [...PALETTE];
  return PALETTE.filter((c) => c.name.startsWith(word) || c.aliases.some((a) => a.startsWith(word)));
}

/** Exact command for a typed line (`sessions state=FAILED` → sessions with filter), if any. */
export function parsePalette(text: string): { command: PaletteCommand; rest: string } | undefined {
  const [word = '', ...rest] = text.trim().split(/\s+/);
  const w = word.toLowerCase();
  const command =
    PALETTE.find((c) => c.name === w || c.aliases.includes(w)) ??
    (completePalette(w).length === 1 ? completePalette(w)[0] : undefined);
  if (!command) return undefined;
  // k9s accepts `:pod /fred`: a leading slash on the filter is optional.
  return { command, rest: rest.join(' ').replace(/^\//, '') };
}
