/**
 * The one input dispatcher (docs/architecture.md#one-input-dispatcher, docs/architecture.md#explicit-input-modes): (mode, key) → state change or engine call. Kept out of
 * the components so every key path is one readable function, and typing in `/` or `:` can never
 * trigger a single-letter action.
 */

import type { Key } from 'ink';
import type { Selection } from '../app/backend.js';
import { hintFor } from '../app/domain.js';
import type { ActionDef } from '../engine/actions/types.js';
import type { TableRow } from './components/table-types.js';
import { editText } from './components/text-input.js';
import { closeDialog, type DispatchContext, flash, SHORT_FLASH_MS, scroll } from './context.js';
import { offeredToggle } from './dialogs/plan-toggle.js';
import { dialogFor, dialogKey } from './dialogs/registry.js';
import { filterCompletions, paletteFieldCompletions } from './filter-completion.js';
import { safeJournal } from './journal-feed.js';
import {
  completePalette,
  parsePalette,
  resolveAction,
  resolveNav,
  sortLetters,
  viewForDigit,
} from './keymap.js';
import { type Cursor, switchView, type UiState, VIEW_IDS, type ViewId } from './view-store.js';
import { actionScope, isViewId, viewById } from './views/registry.js';
import { jsonSource } from './views/view.js';
import { openWizard } from './wizard/wizard-state.js';

export type { DispatchContext };

/** Index of the cursor row: by fingerprint, else where it was (clamped) when that row vanished. */
export function cursorIndex(rows: readonly TableRow[], cursor: Cursor, followTail = false): number {
  if (rows.length === 0) return 0;
  if (cursor.key === undefined && followTail) return rows.length - 1;
  if (cursor.key !== undefined) {
    const i = rows.findIndex((r) => r.key === cursor.key);
    if (i >= 0) return i;
  }
  return Math.max(0, Math.min(cursor.index, rows.length - 1));
}

function currentRow(s: UiState, rows: readonly TableRow[]): TableRow | undefined {
  return rows[cursorIndex(rows, s.cursor[s.view], viewById(s.view).followTail === true)];
}

function setCursor(ctx: DispatchContext, index: number): void {
  const s = ctx.ui.getState();
  const i = Math.max(0, Math.min(index, ctx.rows.length - 1));
  const row = ctx.rows[i];
  // In the event log, the last row means "follow new events" (htop F).
  const follow = viewById(s.view).followTail === true && i === ctx.rows.length - 1;
  ctx.ui.setState({ cursor: { ...s.cursor, [s.view]: { key: follow ? undefined : row?.key, index: i } } });
}

/** The rows an action applies to: the marked ones, else the cursor row (or the open detail). */
function selectionsFor(s: UiState, rows: readonly TableRow[]): Selection[] {
  const toSel = (r: TableRow): Selection | undefined =>
    r.scope ? { scope: r.scope, key: r.actionKey ?? r.key, label: r.label ?? r.key } : undefined;
  if (s.detail !== undefined) {
    const r = rows.find((x) => x.key === s.detail);
    const sel = r && toSel(r);
    return sel ? [sel] : [];
  }
  if (s.marks.length) return rows.filter((r) => s.marks.includes(r.key)).flatMap((r) => toSel(r) ?? []);
  const r = currentRow(s, rows);
  const sel = r && toSel(r);
  return sel ? [sel] : [];
}

/** Builds the plan for an action on the selection and opens the Plan dialog. */
export function openPlan(ctx: DispatchContext, def: ActionDef): void {
  const s = ctx.ui.getState();
  if (def.id === 'attach') {
    ctx.ui.setState({
      mode: 'wizard',
      dialog: openWizard(ctx, selectionsFor(ctx.ui.getState(), ctx.rows)[0]),
    });
    return;
  }
  const sels =
    def.scopes.includes('node') && !def.scopes.some((x) => x !== 'node') ? [] : selectionsFor(s, ctx.rows);
  if (!def.scopes.includes('node') && sels.length === 0) {
    flash(ctx, `${def.title}: select a row this action applies to (${def.scopes.join(', ')})`);
    return;
  }
  const wrong = sels.filter((x) => !def.scopes.includes(x.scope));
  if (wrong.length) {
    flash(ctx, `${def.title} does not apply to ${wrong.map((w) => w.label).join(', ')}`);
    return;
  }
  try {
    const plan = ctx.backend.plan(def.id, sels, s.write);
    // An option the console offers as a key in the plan (cleanup's driver files), where it changes the plan.
    const toggle = offeredToggle(def, sels, plan);
    ctx.ui.setState({
      mode: 'confirm',
      dialog: { kind: 'plan', plan, typed: '', ...(toggle ? { toggle } : {}) },
      lastSelections: sels,
      flash: undefined,
      detailScroll: 0,
    });
  } catch (e) {
    const err = e as Error & { hint?: string };
    const hint = err.hint ? hintFor(err.hint, 'console', ctx.backend.actions) : '';
    flash(ctx, `${def.title}: ${err.message}${hint ? ` (hint: ${hint})` : ''}`, 'bad');
  }
}

function runPalette(ctx: DispatchContext, text: string): void {
  const parsed = parsePalette(text);
  const s = ctx.ui.getState();
  if (!parsed) {
    closeDialog(ctx);
    flash(ctx, `unknown command :${text.trim()} (tab completes, :help lists them)`, 'bad');
    return;
  }
  const { command, rest } = parsed;
  ctx.ui.setState({ mode: 'normal', input: '', completion: 0 });
  if (command.view) {
    ctx.ui.setState(switchView(ctx.ui.getState(), command.view));
    if (rest) ctx.ui.setState({ filter: { ...ctx.ui.getState().filter, [command.view]: rest } });
    return;
  }
  switch (command.name) {
    case 'write':
      if (s.write) flash(ctx, 'already in WRITE mode', 'ok');
      else ctx.ui.setState({ mode: 'confirm', dialog: { kind: 'write', typed: '' } });
      return;
    case 'readonly':
      ctx.ui.setState({ write: false });
      flash(ctx, 'READ-ONLY: changes are disabled', 'ok');
      return;
    case 'dry-run':
      ctx.ui.setState({ dryRun: !s.dryRun });
      flash(ctx, s.dryRun ? 'dry-run off' : 'DRY-RUN: actions show their plan only', 'ok');
      return;
    case 'attach':
      ctx.ui.setState({
        mode: 'wizard',
        dialog: openWizard(ctx, selectionsFor(ctx.ui.getState(), ctx.rows)[0]),
      });
      return;
    case 'help':
      ctx.ui.setState({ mode: 'normal', dialog: { kind: 'help' } });
      return;
    case 'quit':
      ctx.exit();
      return;
  }
}

function textMode(ctx: DispatchContext, input: string, key: Key): void {
  const s = ctx.ui.getState();
  if (s.mode === 'filter') {
    if (key.escape) {
      ctx.ui.setState({ mode: 'normal', filter: { ...s.filter, [s.view]: '' } });
      return;
    }
    if (key.return) {
      ctx.ui.setState({ mode: 'normal' });
      return;
    }
    if (key.tab) {
      const pick = filterCompletions(s.filter[s.view], s.view)[0];
      if (pick) ctx.ui.setState({ filter: { ...s.filter, [s.view]: pick } });
      return;
    }
    const next = editText(s.filter[s.view], input, key);
    if (next !== undefined) ctx.ui.setState({ filter: { ...s.filter, [s.view]: next } });
    return;
  }
  // command mode
  const matches = completePalette(s.input);
  if (key.escape) {
    closeDialog(ctx, { completion: 0 });
    return;
  }
  if (key.return) {
    runPalette(ctx, s.input);
    return;
  }
  const fields = paletteFieldCompletions(s.input);
  if ((key.tab || key.rightArrow) && fields.length) {
    ctx.ui.setState({ input: fields[s.completion % fields.length]!, completion: 0 });
    return;
  }
  if (key.tab || key.rightArrow) {
    const pick = matches[s.completion % Math.max(1, matches.length)];
    if (pick) ctx.ui.setState({ input: `${pick.name} `, completion: 0 });
    return;
  }
  if (key.downArrow) {
    const n = fields.length || matches.length;
    ctx.ui.setState({ completion: (s.completion + 1) % Math.max(1, n) });
    return;
  }
  if (key.upArrow) {
    ctx.ui.setState({ completion: Math.max(0, s.completion - 1) });
    return;
  }
  const next = editText(s.input, input, key);
  if (next !== undefined) ctx.ui.setState({ input: next, completion: 0 });
}

/** True while keys are text for a field (filter, palette, typed confirmation, wizard). */
function typing(s: UiState): boolean {
  if (s.mode === 'filter' || s.mode === 'command') return true;
  return s.dialog !== undefined && dialogFor(s.dialog).typing;
}

/**
 * Handles one read from the terminal. Over SSH (and from tmux send-keys) several keys can arrive in
 * one read: outside a text field each character is its own key, so `/state=FAILED` typed fast
 * still opens the filter first; inside a text field the chunk is text (a paste).
 */
export function dispatchKey(ctx: DispatchContext, input: string, key: Key): void {
  // A carriage return split off a chunk below (`G⏎` in one read) carries no flag of its own.
  if (input === '\r' && !key.return) {
    const plain = Object.fromEntries(Object.keys(key).map((k) => [k, false])) as unknown as Key;
    dispatchOne(ctx, '', { ...plain, return: true });
    return;
  }
  if (input.length > 1 && !key.ctrl && !key.meta && !typing(ctx.ui.getState())) {
    const plain = Object.fromEntries(Object.keys(key).map((k) => [k, false])) as unknown as Key;
    const first = [...input][0]!;
    if (first === '\r') dispatchOne(ctx, '', { ...plain, return: true });
    else dispatchOne(ctx, first, plain);
    dispatchKey(ctx, input.slice(first.length), plain);
    return;
  }
  // A control key typed right after text (`10.0.0.5^D`) arrives in the same chunk: split it off.
  const ctl = /[\x01-\x0c\x0e-\x1a]/.exec(input);
  if (input.length > 1 && ctl && !key.ctrl && !key.meta) {
    const plain = Object.fromEntries(Object.keys(key).map((k) => [k, false])) as unknown as Key;
    if (ctl.index > 0) dispatchKey(ctx, input.slice(0, ctl.index), plain);
    dispatchOne(ctx, String.fromCharCode(ctl[0].charCodeAt(0) + 96), { ...plain, ctrl: true });
    if (ctl.index + 1 < input.length) dispatchKey(ctx, input.slice(ctl.index + 1), plain);
    return;
  }
  if (input.length > 1 && input.endsWith('\r') && !key.ctrl && !key.meta) {
    const plain = Object.fromEntries(Object.keys(key).map((k) => [k, false])) as unknown as Key;
    dispatchKey(ctx, input.slice(0, -1), plain);
    dispatchOne(ctx, '', { ...plain, return: true });
    return;
  }
  dispatchOne(ctx, input, key);
}

function dispatchOne(ctx: DispatchContext, input: string, key: Key): void {
  ctx.sync?.();
  const s = ctx.ui.getState();
  if (s.dialog) {
    dialogKey(ctx, s.dialog, input, key);
    return;
  }
  if (s.mode === 'filter' || s.mode === 'command') {
    textMode(ctx, input, key);
    return;
  }
  if (s.flash) ctx.ui.setState({ flash: undefined });
  if (key.ctrl && input === 'c') {
    ctx.exit();
    return;
  }
  const digitView = !key.ctrl ? viewForDigit(input) : undefined;
  if (digitView) {
    ctx.ui.setState(switchView(s, digitView));
    return;
  }
  const nav = resolveNav(input, key);
  const view = viewById(s.view);
  const idx = cursorIndex(ctx.rows, s.cursor[s.view], view.followTail === true);
  if (
    view.scrolls?.(s.detail) === true &&
    nav &&
    ['up', 'down', 'pageUp', 'pageDown', 'top', 'bottom'].includes(nav)
  ) {
    if (nav === 'top') {
      ctx.ui.setState({ detailScroll: 0 });
      return;
    }
    if (nav === 'bottom') {
      ctx.ui.setState({ detailScroll: ctx.scrollMax ?? 10_000 });
      return;
    }
    scroll(ctx, key);
    return;
  }
  switch (nav) {
    case 'up':
      setCursor(ctx, idx - 1);
      return;
    case 'down':
      setCursor(ctx, idx + 1);
      return;
    case 'pageUp':
      setCursor(ctx, idx - ctx.pageSize);
      return;
    case 'pageDown':
      setCursor(ctx, idx + ctx.pageSize);
      return;
    case 'top':
      setCursor(ctx, 0);
      return;
    case 'bottom':
      setCursor(ctx, ctx.rows.length - 1);
      return;
    case 'open':
    case 'describe':
      openSelection(ctx, ctx.rows[idx], nav);
      return;
    case 'json':
      showJson(ctx, ctx.rows[idx]);
      return;
    case 'back':
      if (s.detail !== undefined) {
        ctx.ui.setState({ detail: undefined });
        return;
      }
      if (s.marks.length) {
        ctx.ui.setState({ marks: [] });
        return;
      }
      if (s.filter[s.view]) {
        ctx.ui.setState({ filter: { ...s.filter, [s.view]: '' } });
        return;
      }
      return;
    case 'filter':
      ctx.ui.setState({ mode: 'filter', detail: undefined });
      return;
    case 'command':
      ctx.ui.setState({ mode: 'command', input: '', completion: 0 });
      return;
    case 'help':
      ctx.ui.setState({ dialog: { kind: 'help' }, detailScroll: 0 });
      return;
    case 'mark': {
      const row = ctx.rows[idx];
      if (!row || s.detail !== undefined) return;
      const marks = s.marks.includes(row.key) ? s.marks.filter((k) => k !== row.key) : [...s.marks, row.key];
      ctx.ui.setState({ marks });
      setCursor(ctx, idx + 1);
      return;
    }
    case 'unmarkAll':
      ctx.ui.setState({ marks: [] });
      return;
    case 'sortColumn':
      sortByLetter(ctx, input);
      return;
    case 'sortDefault':
      ctx.ui.setState({ sort: { ...s.sort, [s.view]: undefined } });
      flash(ctx, `${s.view}: default order`, 'ok', SHORT_FLASH_MS);
      return;
    case 'sortNext':
    case 'sortPrev':
    case 'sortReverse': {
      const cols = ctx.columns;
      const cur = s.sort[s.view];
      if (nav === 'sortReverse') {
        if (cur) ctx.ui.setState({ sort: { ...s.sort, [s.view]: { ...cur, desc: !cur.desc } } });
        return;
      }
      const at = cur ? cols.findIndex((c) => c.id === cur.column) : -1;
      const next = cols[(at + (nav === 'sortNext' ? 1 : cols.length - 1 + (at < 0 ? 1 : 0))) % cols.length];
      if (next) ctx.ui.setState({ sort: { ...s.sort, [s.view]: { column: next.id, desc: false } } });
      return;
    }
    case 'probe':
      flash(ctx, 'probing the down portals (at most 5 s)…', 'ok');
      ctx.backend.probePortals().then(
        (line) => flash(ctx, line, 'ok'),
        (e: Error) => flash(ctx, e.message, 'bad'),
      );
      return;
    case 'refresh':
      ctx.backend.refreshNow();
      ctx.ui.setState({ refreshToken: s.refreshToken + 1 });
      flash(ctx, 'refreshing…', 'ok');
      return;
    case 'nextView':
    case 'prevView': {
      const i = VIEW_IDS.indexOf(s.view);
      const step = nav === 'nextView' ? 1 : VIEW_IDS.length - 1;
      ctx.ui.setState(switchView(s, VIEW_IDS[(i + step) % VIEW_IDS.length] as ViewId));
      return;
    }
    case 'lastView': {
      const prev = s.history[s.history.length - 1];
      if (prev) ctx.ui.setState({ ...switchView(s, prev), history: s.history.slice(0, -1) });
      return;
    }
    case 'quit':
      ctx.exit();
      return;
    default:
      break;
  }
  const scope = actionScope(s.view, s.detail, ctx.rows, currentRow(s, ctx.rows));
  const def = resolveAction(ctx.backend.actions, input, key, scope);
  if (def) {
    openPlan(ctx, def);
    return;
  }
  unboundKey(ctx, input, key);
}

/**
 * Shift + a column's letter (k9s): sort by that column, ascending; the same letter again reverses.
 * A letter no column has says which ones the view has.
 */
function sortByLetter(ctx: DispatchContext, letter: string): void {
  const s = ctx.ui.getState();
  const letters = sortLetters(ctx.columns);
  const column = letters.get(letter);
  if (!column) {
    const have = [...letters].map(([l, id]) => `${l} ${ctx.columns.find((c) => c.id === id)?.title ?? id}`);
    flash(
      ctx,
      have.length
        ? `no column sorts on ${letter} here: ${have.join(' · ')} (= default order)`
        : `${s.view} keeps its own order`,
      'warn',
      SHORT_FLASH_MS,
    );
    return;
  }
  const cur = s.sort[s.view];
  const desc = cur?.column === column ? !cur.desc : false;
  ctx.ui.setState({ sort: { ...s.sort, [s.view]: { column, desc } } });
}

/** A key nothing took: an action's key on a row it does not apply to says so; anything else is unknown. */
function unboundKey(ctx: DispatchContext, input: string, key: Key): void {
  // Bare modifiers, mouse and unparsed escape sequences arrive with no input: nothing was typed.
  if (input === '' || key.meta) return;
  const action = key.ctrl ? undefined : ctx.backend.actions.find((a) => a.key === input);
  if (action) {
    flash(
      ctx,
      `${action.key} ${action.title}: not on this row (on ${action.scopes.join(', ')})`,
      'warn',
      SHORT_FLASH_MS,
    );
    return;
  }
  flash(ctx, 'unknown key — ? for help', 'warn', SHORT_FLASH_MS);
}

/** ⏎ and `d` (k9s describe): the selection's detail, or its dialog, where the view has one. */
function openSelection(ctx: DispatchContext, row: TableRow | undefined, nav: 'open' | 'describe'): void {
  const s = ctx.ui.getState();
  if (s.detail !== undefined) {
    if (nav === 'describe') flash(ctx, 'this is the detail (esc goes back)', 'ok', SHORT_FLASH_MS);
    return;
  }
  const to = row && viewById(s.view).open?.(row);
  if (!to) {
    flash(
      ctx,
      row ? `no detail for this row in ${s.view} — y shows it as JSON` : 'no row selected',
      'warn',
      SHORT_FLASH_MS,
    );
    return;
  }
  if ('dialog' in to) ctx.ui.setState({ dialog: to.dialog, detailScroll: 0 });
  else if (isViewId(to.view))
    ctx.ui.setState({ ...switchView(s, to.view), detail: to.detail, detailScroll: 0 });
}

/**
 * `y` (k9s yaml): the selection as the JSON the CLI prints for it (view.json), in a scrollable
 * dialog; in a session's detail, that session.
 */
function showJson(ctx: DispatchContext, row: TableRow | undefined): void {
  const s = ctx.ui.getState();
  const node = ctx.backend.store.getState();
  const view = viewById(s.view);
  const data = {
    snapshot: node.snapshot,
    events: node.events,
    journal: view.feed === 'journal' ? safeJournal(ctx.backend) : [],
    doctor: s.doctor,
  };
  // In a detail, `y` is its row (a session's detail opened elsewhere: the key alone, which is all
  // the sessions view's json reads).
  const target: TableRow | undefined =
    s.detail !== undefined
      ? (ctx.rows.find((r) => r.key === s.detail) ?? {
          key: s.detail,
          cells: [],
          tones: [],
          sort: {},
          fields: {},
        })
      : row;
  const parts = target && view.json?.(target, data);
  if (!parts?.length) {
    flash(ctx, target ? `nothing to show as JSON in ${s.view}` : 'no row selected', 'warn', SHORT_FLASH_MS);
    return;
  }
  ctx.ui.setState({ dialog: { kind: 'json', source: jsonSource(view), parts }, detailScroll: 0 });
}
