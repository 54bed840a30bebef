/**
 * The console's root: a column of status bar, view tabs, body, prompt line and key hints, every
 * part with an explicit height so a frame is never taller than the terminal (docs/architecture.md#full-screen-layout), plus the one
 * root `useInput` dispatcher (through `useKeyInput`, key-frame-flush.ts; docs/architecture.md#one-input-dispatcher).
 *
 * Views and dialogs are registered modules (views/registry.ts, dialogs/registry.ts): nothing here
 * names a view or a dialog. Each part subscribes to the few UI-state fields it shows (selectors),
 * so typing in the palette re-renders the prompt line, not the table.
 */
import { Box, useApp, useWindowSize } from 'ink';
import { useEffect, useMemo, useRef } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { ConsoleBackend, JournalEntry, NodeEvent } from '../app/backend.js';
import type { Scope } from '../engine/actions/types.js';
import { Text } from './components/safe-text.js';
import { TextInput } from './components/text-input.js';
import type { Dialog } from './dialogs/dialog-types.js';
import { dialogFor } from './dialogs/registry.js';
import { cursorIndex, type DispatchContext, dispatchKey } from './dispatch.js';
import { filterFields } from './filter.js';
import { completionNames, filterCompletions, paletteFieldCompletions } from './filter-completion.js';
import { COMMAND_HINTS, detailHints, filterHints, fitHints, type Hint, listHints } from './footer-hints.js';
import { safeJournal } from './journal-feed.js';
import { useKeyInput } from './key-frame-flush.js';
import { actionsFor, completePalette } from './keymap.js';
import { OutageBanner, outageBannerHeight } from './outage-banner.js';
import { orderLabel, shownRows } from './sort-rows.js';
import { StatusBar } from './status-bar.js';
import { SUMMARY_LINE_HEIGHT, SummaryLine } from './summary-line.js';
import { tabStrip } from './tab-strip.js';
import { type Theme, toneColor } from './theme.js';
import { useNow } from './use-now.js';
import { useViewRun } from './view-run.js';
import type { UiStore, ViewId } from './view-store.js';
import { actionScope, VIEWS, viewById, viewRows } from './views/registry.js';
import { TableBody } from './views/table-body.js';
import type { ViewBodyProps, ViewData } from './views/view.js';

/** Below this the console shows only a "terminal too small" message. */
const MIN_COLUMNS = 60;
const MIN_ROWS = 12;

interface ConsoleAppProps {
  backend: ConsoleBackend;
  ui: UiStore;
  theme: Theme;
  hostname: string;
  clock?: () => number;
}

const EMPTY_JOURNAL: JournalEntry[] = [];
const EMPTY_EVENTS: NodeEvent[] = [];

export function ConsoleApp(props: ConsoleAppProps) {
  const { backend, ui, theme, hostname } = props;
  // The host's clock: the simulator's runs ahead of the wall clock, and refresh ages use it.
  const clock = props.clock ?? backend.now;
  const { exit } = useApp();
  const { columns: width, rows: height } = useWindowSize();
  // Only what the rows, the cursor and the scroll bound depend on; the parts below pick their own.
  const s = useStore(
    ui,
    useShallow((x) => ({
      view: x.view,
      detail: x.detail,
      filter: x.filter[x.view],
      sort: x.sort[x.view],
      cursor: x.cursor[x.view],
      dialog: x.dialog,
      write: x.write,
      dryRun: x.dryRun,
    })),
  );
  const view = viewById(s.view);
  const snapshot = useStore(backend.store, (x) => x.snapshot);
  // A down session's detail shows the kernel's recovery countdown: it ticks while on screen.
  const counting =
    s.detail !== undefined && snapshot?.sessions.find((x) => x.key === s.detail)?.downSeenAt !== undefined;
  const now = useNow(clock, counting);
  // Events re-render only a view that lists them (the array changes on every event).
  const events = useStore(backend.store, (x) => (view.feed === 'events' ? x.events : EMPTY_EVENTS));
  // Re-read on every snapshot and dialog change: an action's journal line lands around the refresh after it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: snapshot and dialog are re-read triggers
  const journal = useMemo(
    () => (view.feed === 'journal' ? safeJournal(backend) : EMPTY_JOURNAL),
    [view, snapshot, s.dialog?.kind, backend],
  );
  // A view that runs commands (doctor) runs them when shown and on ctrl-r.
  const doctor = useViewRun(backend, ui, view);
  const base = useMemo(
    () => ({ columns: view.columns, rows: viewRows(view, { snapshot, events, journal, doctor }) }),
    [view, snapshot, events, journal, doctor],
  );
  const rows = useMemo(() => shownRows(base.rows, s.filter, s.sort), [base, s.filter, s.sort]);
  // Status bar, tabs, summary line, (outage banner), prompt and hints: the body gets the rest.
  const banner = outageBannerHeight(snapshot, width);
  const bodyHeight = Math.max(1, height - 4 - SUMMARY_LINE_HEIGHT - banner);
  // A dialog (a plan, the wizard, help) takes every line between the status bar, which says the
  // node and the mode (WRITE, DRY-RUN) a plan would run in, and the prompt line (its messages).
  const paneHeight = s.dialog ? Math.max(1, height - 2) : bodyHeight;
  const running = useRef<DispatchContext['running']>({}).current;
  const ctx: DispatchContext = {
    ui,
    backend,
    rows,
    columns: base.columns,
    // A page keeps one line of the last in view: a dialog shows 4 lines fewer (border, title,
    // footer) and, with more below, one more for its "… more lines" line, so PgDn skips nothing.
    pageSize: Math.max(1, s.dialog ? paneHeight - 6 : bodyHeight - 2),
    scrollMax: scrollMax(s, { snapshot, events, journal, doctor }, backend, paneHeight, hostname, width),
    hostname,
    running,
    now: clock,
    sync: () => syncRows(ctx, backend, s),
    exit: () => {
      // Ctrl-C never kills an action half-way without asking (docs/architecture.md#terminal-lifecycle).
      if (running.controller) {
        // The dialog showing the run asks whether to stop it (its module says how).
        const d = ui.getState().dialog;
        const asking = d && dialogFor(d).onStopAsked?.(d as never);
        if (asking) ui.setState({ dialog: asking });
        return;
      }
      exit();
    },
  };
  useKeyInput((input, key) => dispatchKey(ctx, input, key));

  if (width < MIN_COLUMNS || height < MIN_ROWS) {
    return (
      <Box width={width} height={height} flexDirection="column" overflow="hidden">
        <Text wrap="truncate" color={toneColor(theme, 'warn')}>
          Terminal too small
        </Text>
        <Text wrap="truncate">{`${width}x${height}; need at least ${MIN_COLUMNS}x${MIN_ROWS}.`}</Text>
        <Text wrap="truncate" color={toneColor(theme, 'dim')}>
          Resize, or use the subcommands (iscsi-console --help). q quits.
        </Text>
      </Box>
    );
  }

  const idx = cursorIndex(rows, s.cursor, view.followTail === true);
  const scope: Scope | undefined = actionScope(s.view, s.detail, rows, rows[idx]);
  // The footer offers ⏎ only where it opens something (a session's detail, a journal entry).
  const cursorRow = rows[idx];
  const opens = cursorRow !== undefined && view.open?.(cursorRow) !== undefined;
  const bodyProps = { ...props, rows, columns: base.columns, idx, width, height: paneHeight, snapshot, now };
  if (s.dialog) return <DialogScreen {...bodyProps} dialog={s.dialog} clock={clock} screenHeight={height} />;
  return (
    <Box width={width} height={height} flexDirection="column" overflowY="hidden">
      <StatusBar backend={backend} ui={ui} theme={theme} width={width} clock={clock} />
      <ViewTabs
        view={s.view}
        detail={s.detail !== undefined}
        theme={theme}
        count={rows.length}
        total={base.rows.length}
        index={idx}
        order={orderLabel(base.columns, base.rows, s.sort)}
        width={width}
      />
      <OutageBanner snapshot={snapshot} theme={theme} width={width} clock={clock} />
      <SummaryLine snapshot={snapshot} theme={theme} width={width} banner={banner > 0} />
      <Box height={bodyHeight} flexDirection="column" overflowY="hidden">
        <ViewPane {...bodyProps} view={s.view} />
      </Box>
      <PromptLine ui={ui} theme={theme} width={width} clock={clock} />
      <Hints ui={ui} backend={backend} theme={theme} scope={scope} opens={opens} width={width} />
    </Box>
  );
}

/**
 * The rows a key applies to when an earlier key of the same read switched the view, filter or
 * sort: what the next frame will show, read from the stores now (`drawn` is what this frame shows).
 */
function syncRows(
  ctx: DispatchContext,
  backend: ConsoleBackend,
  drawn: { view: ViewId; filter: string; sort: UiSort },
): void {
  const st = ctx.ui.getState();
  const want = { view: st.view, filter: st.filter[st.view], sort: st.sort[st.view] };
  const last = shown.get(ctx) ?? drawn;
  if (want.view === last.view && want.filter === last.filter && want.sort === last.sort) return;
  shown.set(ctx, want);
  const view = viewById(want.view);
  const node = backend.store.getState();
  const data = {
    snapshot: node.snapshot,
    events: view.feed === 'events' ? node.events : EMPTY_EVENTS,
    journal: view.feed === 'journal' ? safeJournal(backend) : EMPTY_JOURNAL,
  };
  ctx.rows = shownRows(viewRows(view, data), want.filter, want.sort);
  ctx.columns = view.columns;
}

type UiSort = { column: string; desc: boolean } | undefined;
/** What a context's rows were last synced to, while keys of one read are dispatched. */
const shown = new WeakMap<DispatchContext, { view: ViewId; filter: string; sort: UiSort }>();

/** How far the shown detail or dialog can scroll (its lines minus the visible height). */
function scrollMax(
  s: {
    view: ViewId;
    detail: string | undefined;
    dialog: Dialog | undefined;
    write: boolean;
    dryRun: boolean;
  },
  data: ViewData,
  backend: ConsoleBackend,
  bodyHeight: number,
  hostname: string,
  /** The body's width: a view's detail wraps to it, a dialog's lines to 4 columns less (its frame). */
  width: number,
): number | undefined {
  const d = s.dialog;
  if (d) {
    const count = dialogFor(d).lineCount?.({
      d,
      write: s.write,
      dryRun: s.dryRun,
      backend,
      hostname,
      bodyWidth: width - 4,
    });
    // Dialogs lose 2 border lines, a title and a footer.
    return count === undefined ? undefined : Math.max(0, count - Math.max(1, bodyHeight - 4));
  }
  const lines = viewById(s.view).scrollLines?.(data.snapshot, s.detail, width, data);
  return lines === undefined ? undefined : Math.max(0, lines - bodyHeight);
}

/**
 * The tab bar: the view tabs, then the "n of m" counter, which is never cut: at 80 columns the
 * tabs shorten instead (tab-strip.ts).
 */
function ViewTabs(props: {
  view: ViewId;
  detail: boolean;
  theme: Theme;
  count: number;
  total: number;
  index: number;
  /** The rows' order (sort-rows.ts orderLabel): `▲SID`, `▼SEVERITY`, or empty. */
  order: string;
  width: number;
}) {
  const { theme } = props;
  const counter =
    props.count === 0
      ? '0 of 0'
      : `${props.index + 1} of ${props.count}${props.count !== props.total ? ` (${props.total} total)` : ''}`;
  // Narrow, the order is said in 4 cells (`▼SEV`, `▲SID`) so the tabs keep their names; the
  // sorted column's header carries its arrow too.
  const narrow = props.width < 100;
  const order =
    props.order && !props.detail
      ? narrow
        ? ` ${[...props.order].slice(0, 4).join('')}`
        : ` · ${props.order}`
      : '';
  const right = `  ${props.detail ? 'detail' : viewById(props.view).noCounter ? '' : `${counter}${order}`}`;
  const tabs = tabStrip(VIEWS, props.view, theme, props.width - right.length);
  return (
    <Text wrap="truncate">
      {tabs.map((t) => (
        <Text
          key={t.id}
          inverse={t.active}
          bold={t.active}
          color={t.active ? undefined : toneColor(theme, 'dim')}
        >
          {t.label}
        </Text>
      ))}
      <Text color={toneColor(theme, 'dim')}>{right}</Text>
    </Text>
  );
}

type PaneProps = ConsoleAppProps &
  Pick<ViewBodyProps, 'rows' | 'columns' | 'idx' | 'width' | 'height' | 'snapshot' | 'now'>;

/** The current view's body: its own, or the table of its rows. */
function ViewPane(props: PaneProps & { view: ViewId }) {
  const { theme, ui } = props;
  const view = viewById(props.view);
  const s = useStore(
    ui,
    useShallow((x) => ({
      detail: x.detail,
      scroll: x.detailScroll,
      marks: x.marks,
      sort: x.sort[x.view],
      filter: x.filter[x.view],
      refreshToken: x.refreshToken,
      doctor: x.doctor,
    })),
  );
  const marks = useMemo(() => new Set(s.marks), [s.marks]);
  if (!props.snapshot && !view.feed) {
    return <Text color={toneColor(theme, 'dim')}>Reading the node…</Text>;
  }
  const body = { ...props, ...s, marks };
  const Body = view.Body;
  return Body ? <Body {...body} /> : <TableBody {...body} viewId={view.id} />;
}

/** A dialog over the views: every line between the status bar and the prompt line. */
function DialogScreen(props: PaneProps & { dialog: Dialog; clock: () => number; screenHeight: number }) {
  const { backend, ui, theme, width, clock } = props;
  return (
    <Box width={width} height={props.screenHeight} flexDirection="column" overflowY="hidden">
      <StatusBar backend={backend} ui={ui} theme={theme} width={width} clock={clock} />
      <DialogPane {...props} />
      <PromptLine ui={ui} theme={theme} width={width} clock={clock} />
    </Box>
  );
}

/** The open dialog, drawn by its registered module. */
function DialogPane(props: PaneProps & { dialog: Dialog }) {
  const s = useStore(
    props.ui,
    useShallow((x) => ({ write: x.write, dryRun: x.dryRun, scroll: x.detailScroll })),
  );
  const mod = dialogFor(props.dialog);
  const Render = mod.render;
  const { ui, dialog } = props;
  // After the commit that drew this very state (not a timer): the dialog may open its answer field.
  useEffect(() => {
    if (!mod.onShown || ui.getState().dialog !== dialog) return;
    const next = mod.onShown(dialog as never);
    if (next) ui.setState({ dialog: next });
  }, [ui, dialog, mod]);
  return (
    <Render
      d={props.dialog}
      {...s}
      backend={props.backend}
      theme={props.theme}
      hostname={props.hostname}
      width={props.width}
      height={props.height}
      bodyHeight={Math.max(1, props.height - 4)}
      bodyWidth={props.width - 4}
    />
  );
}

function PromptLine(props: { ui: UiStore; theme: Theme; width: number; clock: () => number }) {
  const { theme, width } = props;
  const s = useStore(
    props.ui,
    useShallow((x) => ({
      mode: x.mode,
      filter: x.filter[x.view],
      input: x.input,
      completion: x.completion,
      flash: x.flash,
    })),
  );
  // A passing flash ("unknown key") ends on the console's clock; the line re-reads it while one shows.
  const now = useNow(props.clock, s.flash?.until !== undefined, 250);
  const flash = s.flash && (s.flash.until === undefined || now < s.flash.until) ? s.flash : undefined;
  if (s.mode === 'filter') {
    return <TextInput label="/" value={s.filter} focused width={width} theme={theme} placeholder="filter" />;
  }
  if (s.mode === 'command') {
    // `:sessions st` completes the filter field (`state=`), else the command.
    const fields = completionNames(paletteFieldCompletions(s.input));
    const matches = fields.length ? fields : completePalette(s.input).map((m) => m.name);
    const sel = matches[s.completion % Math.max(1, matches.length)];
    return (
      <Text wrap="truncate">
        <Text bold color={toneColor(theme, 'accent')}>
          :
        </Text>
        <Text>{s.input}</Text>
        <Text inverse> </Text>
        <Text color={toneColor(theme, 'dim')}>{'  '}</Text>
        {matches.slice(0, 8).map((m) => (
          <Text key={m} inverse={m === sel} color={m === sel ? undefined : toneColor(theme, 'dim')}>
            {/* Without colours (NO_COLOR: inverse is dropped too) the chosen completion is bracketed. */}
            {m === sel && !theme.color ? `[${m}]` : ` ${m} `}
          </Text>
        ))}
      </Text>
    );
  }
  if (flash)
    return (
      <Text wrap="truncate" color={toneColor(theme, flash.tone)}>
        {flash.text}
      </Text>
    );
  return <Text> </Text>;
}

function Hints(props: {
  ui: UiStore;
  backend: ConsoleBackend;
  theme: Theme;
  scope: Scope | undefined;
  /** The cursor row opens a detail or an entry (⏎ and d). */
  opens: boolean;
  width: number;
}) {
  const { theme } = props;
  const s = useStore(
    props.ui,
    useShallow((x) => ({
      dialog: x.dialog !== undefined,
      mode: x.mode,
      detail: x.detail,
      write: x.write,
      view: x.view,
      filter: x.mode === 'filter' ? x.filter[x.view] : '',
    })),
  );
  // No actions are offered on the first look: they are planned on the full read (console start-up).
  const partial = useStore(props.backend.store, (x) => x.snapshot?.partial !== undefined);
  let hints: readonly Hint[] | undefined;
  if (s.dialog) hints = undefined;
  else if (s.mode === 'filter') {
    // The fields the last word could be (tab completes the first), else all of the view's.
    const next = completionNames(filterCompletions(s.filter, s.view));
    hints = filterHints(next, next.length ? next : filterFields(s.view));
  } else if (s.mode === 'command') hints = COMMAND_HINTS;
  else {
    const acts = partial ? [] : actionsFor(props.backend.actions, props.scope, s.write);
    hints = s.detail !== undefined ? detailHints(acts) : listHints(acts, props.opens);
  }
  return (
    <Text wrap="truncate" color={toneColor(theme, 'dim')}>
      {(hints && fitHints(hints, props.width)) || ' '}
    </Text>
  );
}
