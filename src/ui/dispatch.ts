/**
 * The one input dispatcher (docs/architecture.md#one-input-dispatcher, docs/architecture.md#explicit-input-modes): (mode, key) → state change or engine call. Kept out of
 * the components so every key path is one readable function, and typing in `/` or `:` can never
 * trigger a single-letter action.
 */
import type { Key } from 'ink';
import { answerConsents, type Consent, consentFor } from '../engine/actions/consent.js';
import type { ActionDef, Plan } from '../engine/actions/types.js';
import type { ConsoleBackend, Selection } from './backend.js';
import type { Column, TableRow } from './components/table-types.js';
import { editText } from './components/text-input.js';
import { completePalette, parsePalette, resolveAction, resolveNav, viewForDigit } from './keymap.js';
import {
  type Cursor,
  type Dialog,
  switchView,
  type UiState,
  type UiStore,
  VIEW_IDS,
  type ViewId,
} from './view-store.js';
import { openWizard, wizardKey, wizardPlanCancelled } from './wizard/wizard-state.js';

export interface DispatchContext {
  ui: UiStore;
  backend: ConsoleBackend;
  /** The current view's rows as shown (filtered and sorted). */
  rows: readonly TableRow[];
  columns: readonly Column[];
  /** Rows per page in the body. */
  pageSize: number;
  /** Largest useful scroll offset of the detail/dialog shown (unknown: unbounded). */
  scrollMax?: number;
  hostname: string;
  exit(): void;
  /** The running action's abort switch (stops between steps, never mid-command). */
  running: { controller?: AbortController | undefined };
}

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

export function currentRow(s: UiState, rows: readonly TableRow[]): TableRow | undefined {
  return rows[cursorIndex(rows, s.cursor[s.view], s.view === 'events')];
}

function setCursor(ctx: DispatchContext, index: number): void {
  const s = ctx.ui.getState();
  const i = Math.max(0, Math.min(index, ctx.rows.length - 1));
  const row = ctx.rows[i];
  // In the event log, the last row means "follow new events" (htop F).
  const follow = s.view === 'events' && i === ctx.rows.length - 1;
  ctx.ui.setState({ cursor: { ...s.cursor, [s.view]: { key: follow ? undefined : row?.key, index: i } } });
}

function flash(ctx: DispatchContext, text: string, tone: 'ok' | 'warn' | 'bad' = 'warn'): void {
  ctx.ui.setState({ flash: { text, tone } });
}

/** The rows an action applies to: the marked ones, else the cursor row (or the open detail). */
export function selectionsFor(s: UiState, rows: readonly TableRow[]): Selection[] {
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
    ctx.ui.setState({ mode: 'wizard', dialog: openWizard(ctx) });
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
    ctx.ui.setState({
      mode: 'confirm',
      dialog: { kind: 'plan', plan, typed: '' },
      lastSelections: sels,
      flash: undefined,
      detailScroll: 0,
    });
  } catch (e) {
    const err = e as Error & { hint?: string };
    flash(ctx, `${def.title}: ${err.message}${err.hint ? ` (hint: ${err.hint})` : ''}`, 'bad');
  }
}

export type PlanDialog = Extract<Dialog, { kind: 'plan' }>;

/**
 * The engine's consent (engine/actions/consent.ts) for the Plan dialog as it stands: write mode,
 * dry-run, and whether the admin opened the override step. The dialog only phrases it.
 */
export function planConsent(s: UiState, d: PlanDialog, hostname: string): Consent {
  return consentFor(d.plan, {
    write: s.write,
    dryRun: s.dryRun,
    hostname,
    override: d.override === true,
    interactive: true,
  });
}

/** What the dialog's footer says when nothing can be applied (the console's words for `blocked`). */
export function blockedText(b: NonNullable<Consent['blocked']>): string {
  switch (b.kind) {
    case 'read-only':
      return `${b.reason} · type :write (or start with --write) to allow changes`;
    case 'dry-run':
      return `${b.reason} (:dry-run toggles)`;
    case 'needs-override':
      return `${b.reason} · o overrides`;
    default:
      return b.reason;
  }
}

export function startApply(ctx: DispatchContext, plan: Plan, force: boolean): void {
  const controller = new AbortController();
  ctx.running.controller = controller;
  ctx.ui.setState({
    mode: 'busy',
    dialog: {
      kind: 'progress',
      plan,
      steps: plan.steps.map((x) => ({ stepId: x.id, status: 'pending' })),
      stopRequested: false,
      askQuit: false,
      quitAfter: false,
      controller,
    },
  });
  const onProgress = (p: { stepId: string; status: string }) => {
    const d = ctx.ui.getState().dialog;
    if (d?.kind !== 'progress') return;
    const steps = d.steps.map((x) => (x.stepId === p.stepId ? { ...x, ...p } : x)) as typeof d.steps;
    ctx.ui.setState({ dialog: { ...d, steps } });
  };
  const finish = (result: Parameters<typeof outcome>[1]) => outcome(ctx, result, plan);
  const secrets = ctx.ui.getState().pendingSecrets;
  ctx.ui.setState({ pendingSecrets: undefined });
  ctx.backend
    .apply(plan, {
      write: ctx.ui.getState().write,
      force,
      onProgress,
      signal: controller.signal,
      ...(secrets ? { secrets } : {}),
    })
    .then(finish, (e: Error & { hint?: string }) =>
      finish({
        ok: false,
        steps: [],
        verified: false,
        verification: [],
        error: { message: e.message, ...(e.hint ? { hint: e.hint } : {}) },
      }),
    );
}

function outcome(
  ctx: DispatchContext,
  result: import('../engine/actions/types.js').ApplyResult,
  plan: Plan,
): void {
  ctx.running.controller = undefined;
  ctx.backend.refreshNow();
  const d = ctx.ui.getState().dialog;
  const quitAfter = d?.kind === 'progress' && d.quitAfter;
  ctx.ui.setState({
    mode: 'confirm',
    dialog: { kind: 'outcome', plan, result },
    marks: [],
    detailScroll: 0,
    // A failed attach keeps the wizard's values for the next `a`; a successful one drops them.
    ...(plan.action === 'attach' && result.ok ? { wizardDraft: undefined } : {}),
  });
  if (quitAfter) ctx.exit();
}

/** After a successful attach: the new session's detail (the wizard ends there). */
function attachedDetail(ctx: DispatchContext): Partial<UiState> {
  const s = ctx.ui.getState();
  const t = s.attachTarget;
  const snap = ctx.backend.store.getState().snapshot;
  const found =
    t &&
    snap?.sessions.find(
      (x) => x.targetIqn === t.iqn && (x.portal === t.portal || x.portal.startsWith(`${t.portal}:`)),
    );
  if (!found) return { attachTarget: undefined };
  return { ...switchView(s, 'sessions'), detail: found.key, detailScroll: 0, attachTarget: undefined };
}

function closeDialog(ctx: DispatchContext, extra: Partial<UiState> = {}): void {
  ctx.ui.setState({ mode: 'normal', dialog: undefined, input: '', ...extra });
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
      ctx.ui.setState({ mode: 'wizard', dialog: openWizard(ctx) });
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
  if (key.tab || key.rightArrow) {
    const pick = matches[s.completion % Math.max(1, matches.length)];
    if (pick) ctx.ui.setState({ input: `${pick.name} `, completion: 0 });
    return;
  }
  if (key.downArrow) {
    ctx.ui.setState({ completion: (s.completion + 1) % Math.max(1, matches.length) });
    return;
  }
  if (key.upArrow) {
    ctx.ui.setState({ completion: Math.max(0, s.completion - 1) });
    return;
  }
  const next = editText(s.input, input, key);
  if (next !== undefined) ctx.ui.setState({ input: next, completion: 0 });
}

function dialogKey(ctx: DispatchContext, d: Dialog, input: string, key: Key): void {
  const s = ctx.ui.getState();
  if (d.kind === 'help' || d.kind === 'outcome') {
    if (key.escape || key.return || input === 'q' || input === '?') {
      const extra: Partial<UiState> = {};
      if (d.kind === 'outcome' && s.detail !== undefined && !ctx.rows.some((r) => r.key === s.detail))
        extra.detail = undefined;
      if (d.kind === 'outcome' && d.plan.action === 'attach' && d.result.ok)
        Object.assign(extra, attachedDetail(ctx));
      closeDialog(ctx, extra);
    } else scroll(ctx, key);
    return;
  }
  if (d.kind === 'write') {
    if (key.escape) {
      closeDialog(ctx);
      return;
    }
    if (key.return) {
      if (d.typed === ctx.hostname) {
        closeDialog(ctx, { write: true });
        flash(ctx, `WRITE mode on ${ctx.hostname}: destructive actions are enabled`, 'warn');
      } else
        ctx.ui.setState({
          dialog: { ...d, typed: '' },
          flash: { text: `type ${ctx.hostname} exactly`, tone: 'bad' },
        });
      return;
    }
    const next = editText(d.typed, input, key);
    if (next !== undefined) ctx.ui.setState({ dialog: { ...d, typed: next } });
    return;
  }
  if (d.kind === 'plan') {
    if (key.escape) {
      if (wizardPlanCancelled(ctx, d.plan)) return;
      closeDialog(ctx, { flash: { text: `${d.plan.title} cancelled`, tone: 'warn' } });
      return;
    }
    if (key.upArrow || key.downArrow || key.pageUp || key.pageDown) {
      scroll(ctx, key);
      return;
    }
    const consent = planConsent(s, d, ctx.hostname);
    if (consent.blocked?.kind === 'needs-override') {
      // The override is its own step: the plain token typed here is not consent to override.
      if (input === 'o' && !key.ctrl && !key.meta) {
        ctx.ui.setState({ dialog: { ...d, override: true, typed: '', error: undefined }, detailScroll: 0 });
      } else if (key.return) {
        ctx.ui.setState({
          dialog: {
            ...d,
            typed: '',
            error: 'refused: nothing typed here applies it; o opens the override step',
          },
        });
      }
      return;
    }
    if (consent.blocked) {
      if (key.return || input === 'q' || input === 'n') closeDialog(ctx);
      return;
    }
    const { ask } = consent;
    if (ask.kind === 'typed' || ask.kind === 'override') {
      if (key.return) {
        if (answerConsents(ask, d.typed)) startApply(ctx, d.plan, consent.force);
        else
          ctx.ui.setState({
            dialog: { ...d, typed: '', error: `does not match: type ${ask.token} exactly` },
          });
        return;
      }
      const next = editText(d.typed, input, key);
      if (next !== undefined) ctx.ui.setState({ dialog: { ...d, typed: next, error: undefined } });
      return;
    }
    if (ask.kind === 'none' && key.return) {
      startApply(ctx, d.plan, consent.force);
      return;
    }
    // y/N: only an explicit y applies; Enter, n and anything else keep the default (No).
    if (input === 'y' || input === 'Y') {
      startApply(ctx, d.plan, consent.force);
      return;
    }
    if (input === 'n' || input === 'N' || key.return)
      closeDialog(ctx, { flash: { text: `${d.plan.title} cancelled`, tone: 'warn' } });
    return;
  }
  if (d.kind === 'progress') {
    if (d.askQuit) {
      if (input === 'y' || input === 'Y') {
        d.controller.abort();
        ctx.ui.setState({ dialog: { ...d, stopRequested: true, askQuit: false } });
      } else if (input === 'n' || input === 'N' || key.escape)
        ctx.ui.setState({ dialog: { ...d, askQuit: false } });
      return;
    }
    if ((key.ctrl && input === 'c') || input === 'q') ctx.ui.setState({ dialog: { ...d, askQuit: true } });
    return;
  }
  if (d.kind === 'wizard') {
    if (key.ctrl && input === 'c') {
      closeDialog(ctx);
      return;
    }
    wizardKey(ctx, d, input, key);
  }
}

function scroll(ctx: DispatchContext, key: Key): void {
  const s = ctx.ui.getState();
  const step = key.pageDown
    ? ctx.pageSize
    : key.pageUp
      ? -ctx.pageSize
      : key.downArrow
        ? 1
        : key.upArrow
          ? -1
          : 0;
  const max = ctx.scrollMax ?? Number.POSITIVE_INFINITY;
  if (step) ctx.ui.setState({ detailScroll: Math.max(0, Math.min(max, s.detailScroll + step)) });
}

/** True while keys are text for a field (filter, palette, typed confirmation, wizard). */
function typing(s: UiState): boolean {
  if (s.mode === 'filter' || s.mode === 'command') return true;
  return s.dialog?.kind === 'write' || s.dialog?.kind === 'wizard' || s.dialog?.kind === 'plan';
}

/**
 * Handles one read from the terminal. Over SSH (and from tmux send-keys) several keys can arrive in
 * one read: outside a text field each character is its own key, so `/state=FAILED` typed fast
 * still opens the filter first; inside a text field the chunk is text (a paste).
 */
export function dispatchKey(ctx: DispatchContext, input: string, key: Key): void {
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
  const idx = cursorIndex(ctx.rows, s.cursor[s.view], s.view === 'events');
  if (
    (s.detail !== undefined || s.view === 'doctor') &&
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
    case 'open': {
      const row = ctx.rows[idx];
      if (s.view === 'sessions' && row) ctx.ui.setState({ detail: row.key, detailScroll: 0 });
      else if (s.view === 'targets' && row?.actionKey)
        ctx.ui.setState({ ...switchView(s, 'sessions'), detail: row.actionKey, detailScroll: 0 });
      return;
    }
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
    case 'refresh':
      ctx.backend.refreshNow();
      ctx.ui.setState({ refreshToken: s.refreshToken + 1 });
      flash(ctx, 'refreshing…', 'ok');
      return;
    case 'nextView': {
      const i = VIEW_IDS.indexOf(s.view);
      ctx.ui.setState(switchView(s, VIEW_IDS[(i + 1) % VIEW_IDS.length] as ViewId));
      return;
    }
    case 'prevView': {
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
  const scope = s.detail !== undefined ? 'session' : currentRow(s, ctx.rows)?.scope;
  const def = resolveAction(ctx.backend.actions, input, key, scope);
  if (def) openPlan(ctx, def);
}
