/**
 * The console's root: a column of status bar, view tabs, body, prompt line and key hints, every
 * part with an explicit height so a frame is never taller than the terminal (docs/architecture.md#full-screen-layout), plus the one
 * root `useInput` dispatcher (docs/architecture.md#one-input-dispatcher).
 */
import { Box, useApp, useInput, useWindowSize } from 'ink';
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { Scope } from '../engine/actions/types.js';
import type { DoctorReport } from '../engine/doctor/types.js';
import type { Snapshot } from '../engine/model.js';
import type { ConsoleBackend, JournalEntry } from './backend.js';
import { Text } from './components/safe-text.js';
import { ScrollText } from './components/scroll-text.js';
import { Table } from './components/table.js';
import type { Column, TableRow } from './components/table-types.js';
import { TextInput } from './components/text-input.js';
import { helpLines } from './dialogs/help-lines.js';
import { planLines, progressLines } from './dialogs/plan-lines.js';
import { blockedText, cursorIndex, type DispatchContext, dispatchKey, planConsent } from './dispatch.js';
import { compileFilter } from './filter.js';
import { actionsFor, completePalette } from './keymap.js';
import { OutageBanner, outageBannerHeight } from './outage-banner.js';
import {
  DEVICE_COLUMNS,
  deviceRows,
  EVENT_COLUMNS,
  eventRow,
  JOURNAL_COLUMNS,
  journalRow,
  RECORD_COLUMNS,
  recordRows,
  SESSION_COLUMNS,
  sessionRows,
  sortRows,
  TARGET_COLUMNS,
  targetRows,
  VOLUME_COLUMNS,
  volumeRows,
} from './rows.js';
import { StatusBar } from './status-bar.js';
import { type Theme, toneColor } from './theme.js';
import { useNow } from './use-now.js';
import type { UiState, UiStore, ViewId } from './view-store.js';
import { VIEW_IDS } from './view-store.js';
import { DoctorView } from './views/doctor-view.js';
import { sessionDetailLines } from './views/session-detail.js';
import { WizardPane, wizardFooter } from './wizard/wizard-pane.js';

/** Below this the console shows only a "terminal too small" message. */
export const MIN_COLUMNS = 60;
export const MIN_ROWS = 12;

export interface ConsoleAppProps {
  backend: ConsoleBackend;
  ui: UiStore;
  theme: Theme;
  hostname: string;
  clock?: () => number;
}

const EMPTY_JOURNAL: JournalEntry[] = [];
const EMPTY_COLS: readonly Column[] = [];

interface ViewData {
  columns: readonly Column[];
  rows: TableRow[];
}

/** Rows of a view before filter/sort, memoised on the snapshot reference. */
function baseRows(
  view: ViewId,
  snap: Snapshot | undefined,
  events: UiEvents,
  journal: JournalEntry[],
): ViewData {
  switch (view) {
    case 'sessions':
      return { columns: SESSION_COLUMNS, rows: snap ? sessionRows(snap.sessions) : [] };
    case 'targets':
      return { columns: TARGET_COLUMNS, rows: snap ? targetRows(snap) : [] };
    case 'volumes':
      return { columns: VOLUME_COLUMNS, rows: snap ? volumeRows(snap) : [] };
    case 'devices':
      return { columns: DEVICE_COLUMNS, rows: snap ? deviceRows(snap) : [] };
    case 'records':
      return { columns: RECORD_COLUMNS, rows: snap ? recordRows(snap) : [] };
    case 'events':
      return { columns: EVENT_COLUMNS, rows: events.map(eventRow) };
    case 'journal':
      return { columns: JOURNAL_COLUMNS, rows: journal.map(journalRow) };
    default:
      return { columns: EMPTY_COLS, rows: [] };
  }
}

type UiEvents = import('../watchers/types.js').NodeEvent[];

const noop = () => Date.now();

export function ConsoleApp(props: ConsoleAppProps) {
  const { backend, ui, theme, hostname } = props;
  // The host's clock: the simulator's runs ahead of the wall clock, and refresh ages use it.
  const clock = props.clock ?? backend.now ?? noop;
  const { exit } = useApp();
  const { columns: width, rows: height } = useWindowSize();
  const s = useStore(ui);
  const snapshot = useStore(backend.store, (x) => x.snapshot);
  // A down session's detail shows the kernel's recovery countdown: it ticks while on screen.
  const counting =
    s.detail !== undefined && snapshot?.sessions.find((x) => x.key === s.detail)?.downSeenAt !== undefined;
  const now = useNow(clock, counting);
  // Events re-render only the events view (the array changes on every event).
  const events = useStore(backend.store, (x) => (s.view === 'events' ? x.events : EMPTY_EVENTS));
  // Re-read on every snapshot and dialog change: an action's journal line lands around the refresh after it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: snapshot and dialog are re-read triggers
  const journal = useMemo(
    () => (s.view === 'journal' ? safeJournal(backend) : EMPTY_JOURNAL),
    [s.view, snapshot, s.dialog?.kind, backend],
  );
  const base = useMemo(
    () => baseRows(s.view, snapshot, events, journal),
    [s.view, snapshot, events, journal],
  );
  const filterText = s.filter[s.view];
  const sort = s.sort[s.view];
  const rows = useMemo(() => {
    const pred = compileFilter<TableRow>(filterText);
    return sortRows(base.rows.filter(pred), sort);
  }, [base, filterText, sort]);
  const bodyHeight = Math.max(1, height - 4 - outageBannerHeight(snapshot));
  const running = useRef<DispatchContext['running']>({}).current;
  const ctx: DispatchContext = {
    ui,
    backend,
    rows,
    columns: base.columns,
    pageSize: Math.max(1, bodyHeight - 2),
    scrollMax: scrollMax(s, snapshot, backend, bodyHeight, hostname),
    hostname,
    running,
    exit: () => {
      // Ctrl-C never kills an action half-way without asking (docs/architecture.md#terminal-lifecycle).
      if (running.controller) {
        const d = ui.getState().dialog;
        if (d?.kind === 'progress') ui.setState({ dialog: { ...d, askQuit: true } });
        return;
      }
      exit();
    },
  };
  useInput((input, key) => dispatchKey(ctx, input, key));

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

  const idx = cursorIndex(rows, s.cursor[s.view], s.view === 'events');
  const scope: Scope | undefined = s.detail !== undefined ? 'session' : rows[idx]?.scope;
  return (
    <Box width={width} height={height} flexDirection="column" overflowY="hidden">
      <StatusBar backend={backend} ui={ui} theme={theme} width={width} clock={clock} />
      <ViewTabs s={s} theme={theme} count={rows.length} total={base.rows.length} index={idx} />
      <OutageBanner snapshot={snapshot} theme={theme} width={width} />
      <Box height={bodyHeight} flexDirection="column" overflowY="hidden">
        <Body
          {...props}
          s={s}
          rows={rows}
          columns={base.columns}
          idx={idx}
          width={width}
          height={bodyHeight}
          snapshot={snapshot}
          now={now}
        />
      </Box>
      <PromptLine s={s} theme={theme} width={width} />
      <Hints s={s} backend={backend} theme={theme} scope={scope} />
    </Box>
  );
}

const EMPTY_EVENTS: UiEvents = [];

/** How far the shown detail or dialog can scroll (its lines minus the visible height). */
function scrollMax(
  s: UiState,
  snap: Snapshot | undefined,
  backend: ConsoleBackend,
  bodyHeight: number,
  hostname: string,
): number | undefined {
  const d = s.dialog;
  // Dialogs lose 2 border lines, a title and a footer.
  const dialogRoom = Math.max(1, bodyHeight - 4);
  if (d?.kind === 'help') return Math.max(0, helpLines(backend.actions, s.write).length - dialogRoom);
  if (d?.kind === 'plan')
    return Math.max(0, planLines(d.plan, planConsent(s, d, hostname)).length - dialogRoom);
  if (d) return undefined;
  if (s.view === 'sessions' && s.detail !== undefined && snap) {
    const session = snap.sessions.find((x) => x.key === s.detail);
    return session ? Math.max(0, sessionDetailLines(snap, session, 0).length - bodyHeight) : 0;
  }
  return undefined;
}

function safeJournal(backend: ConsoleBackend): JournalEntry[] {
  try {
    return backend.readJournal();
  } catch {
    return EMPTY_JOURNAL;
  }
}

function ViewTabs(props: { s: UiState; theme: Theme; count: number; total: number; index: number }) {
  const { s, theme } = props;
  const counter =
    props.count === 0
      ? '0 of 0'
      : `${props.index + 1} of ${props.count}${props.count !== props.total ? ` (${props.total} total)` : ''}`;
  return (
    <Text wrap="truncate">
      {VIEW_IDS.map((v, i) => (
        <Text
          key={v}
          inverse={v === s.view}
          bold={v === s.view}
          color={v === s.view ? undefined : toneColor(theme, 'dim')}
        >
          {` ${i + 1} ${v} `}
        </Text>
      ))}
      <Text
        color={toneColor(theme, 'dim')}
      >{`  ${s.detail !== undefined ? 'detail' : s.view === 'doctor' ? '' : counter}`}</Text>
    </Text>
  );
}

interface BodyProps extends ConsoleAppProps {
  s: UiState;
  rows: TableRow[];
  columns: readonly Column[];
  idx: number;
  width: number;
  height: number;
  snapshot: Snapshot | undefined;
  /** Host clock at this render (the session detail's recovery countdown). */
  now: number;
}

function Body(props: BodyProps) {
  const { s, theme, width, height, snapshot } = props;
  const d = s.dialog;
  if (d) return <DialogPane {...props} />;
  if (!snapshot && s.view !== 'events' && s.view !== 'journal') {
    return <Text color={toneColor(theme, 'dim')}>Reading the node…</Text>;
  }
  if (s.view === 'sessions' && s.detail !== undefined && snapshot) {
    const session = snapshot.sessions.find((x) => x.key === s.detail);
    if (!session) {
      return (
        <Text
          color={toneColor(theme, 'warn')}
        >{`Session ${s.detail} is gone (logged out or removed). esc returns to the list.`}</Text>
      );
    }
    const lines = sessionDetailLines(snapshot, session, props.now);
    return <ScrollText lines={lines} height={height} width={width} offset={s.detailScroll} theme={theme} />;
  }
  if (s.view === 'doctor') {
    return (
      <DoctorPane
        backend={props.backend}
        ui={props.ui}
        width={width}
        height={height}
        theme={theme}
        offset={s.detailScroll}
      />
    );
  }
  const marks = new Set(s.marks);
  if (s.view === 'journal') {
    const entry = props.rows[props.idx];
    const j = entry ? safeJournal(props.backend).find((x) => x.id === entry.key) : undefined;
    const tableHeight = Math.max(3, Math.floor(height / 2));
    const lines = j
      ? [
          { text: `${j.action}: ${j.subject}`, bold: true },
          ...j.commands.map((c) => ({
            text: `  $ ${c.argv.join(' ')}  → exit ${c.exitCode ?? 'none'}${c.detail ? ` ${c.detail}` : ''}`,
            tone: c.exitCode === 0 ? ('ok' as const) : ('warn' as const),
          })),
          ...(j.error ? [{ text: `  ✗ ${j.error}`, tone: 'bad' as const }] : []),
        ]
      : [
          {
            text: 'No actions journaled yet: every action run from here or the CLI lands in the journal.',
            tone: 'dim' as const,
          },
        ];
    return (
      <Box flexDirection="column" height={height} overflow="hidden">
        <Table
          columns={props.columns}
          rows={props.rows}
          cursor={props.idx}
          marks={marks}
          width={width}
          height={tableHeight}
          theme={theme}
          sort={s.sort.journal}
          emptyText="journal is empty"
        />
        <ScrollText lines={lines} height={height - tableHeight} width={width} offset={0} theme={theme} />
      </Box>
    );
  }
  return (
    <Table
      columns={props.columns}
      rows={props.rows}
      cursor={props.idx}
      marks={marks}
      width={width}
      height={height}
      theme={theme}
      sort={s.sort[s.view]}
      emptyText={
        s.filter[s.view]
          ? `nothing matches the filter "${s.filter[s.view]}" (esc clears it)`
          : `no ${s.view}${s.view === 'sessions' ? ': press a to attach a volume' : ''}`
      }
    />
  );
}

function DialogPane(props: BodyProps) {
  const { s, theme, width, height, hostname } = props;
  const d = s.dialog!;
  const inner = Math.max(1, height - 2);
  const frame = (
    title: string,
    tone: 'accent' | 'warn' | 'bad' | 'ok',
    body: ReactNode,
    footer: ReactNode,
  ) => (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={toneColor(theme, tone)}
      height={height}
      width={width}
      paddingX={1}
      overflow="hidden"
    >
      <Text bold wrap="truncate" color={toneColor(theme, tone)}>
        {title}
      </Text>
      <Box height={Math.max(1, inner - 2)} flexDirection="column" overflow="hidden">
        {body}
      </Box>
      <Box height={1}>{footer}</Box>
    </Box>
  );
  const bodyH = Math.max(1, inner - 2);
  const w = width - 4;
  switch (d.kind) {
    case 'help':
      return frame(
        ' Help ',
        'accent',
        <ScrollText
          lines={helpLines(props.backend.actions, s.write)}
          height={bodyH}
          width={w}
          offset={s.detailScroll}
          theme={theme}
        />,
        <Text color={toneColor(theme, 'dim')}>↑↓ scroll · esc closes</Text>,
      );
    case 'plan': {
      const consent = planConsent(s, d, hostname);
      const { blocked, ask } = consent;
      const tone = d.plan.risk === 'high' ? 'bad' : d.plan.risk === 'medium' ? 'warn' : 'accent';
      let footer: ReactNode;
      if (blocked)
        footer = (
          <Text color={toneColor(theme, d.error ? 'bad' : 'warn')} wrap="truncate">
            {`${d.error ?? blockedText(blocked)} · esc closes`}
          </Text>
        );
      else if (ask.kind === 'typed' || ask.kind === 'override')
        footer = (
          <TextInput
            label={
              ask.kind === 'override'
                ? `Type ${ask.token} to override ${ask.refusals.length === 1 ? 'this refusal' : `these ${ask.refusals.length} refusals`} and apply (esc cancels):`
                : `Type ${ask.token} to apply on ${hostname} (esc cancels):`
            }
            value={d.typed}
            focused
            width={w}
            theme={theme}
            error={d.error}
          />
        );
      else if (ask.kind === 'none') footer = <Text wrap="truncate">⏎ apply · esc cancel</Text>;
      else footer = <Text wrap="truncate" bold>{`Apply on ${hostname}? [y/N]`}</Text>;
      return frame(
        ` Plan: ${d.plan.title} `,
        tone,
        <ScrollText
          lines={planLines(d.plan, consent)}
          height={bodyH}
          width={w}
          offset={s.detailScroll}
          theme={theme}
        />,
        footer,
      );
    }
    case 'progress': {
      const footer = d.askQuit ? (
        <Text color={toneColor(theme, 'warn')} bold wrap="truncate">
          An action is running. Stop after the current step? [y/N]
        </Text>
      ) : d.stopRequested ? (
        <Text color={toneColor(theme, 'warn')} wrap="truncate">
          Stopping after the current step…
        </Text>
      ) : (
        <Text color={toneColor(theme, 'dim')} wrap="truncate">
          running… ctrl-c asks to stop between steps (never mid-command)
        </Text>
      );
      return frame(
        ` Running: ${d.plan.title} — ${d.plan.subject} `,
        'accent',
        <ScrollText
          lines={progressLines(d.plan, d.steps)}
          height={bodyH}
          width={w}
          offset={0}
          theme={theme}
        />,
        footer,
      );
    }
    case 'outcome': {
      const r = d.result;
      const lines = [
        {
          text: r.ok ? `✓ ${d.plan.title} succeeded` : `✗ ${d.plan.title} failed`,
          tone: r.ok ? ('ok' as const) : ('bad' as const),
          bold: true,
        },
        ...(r.error
          ? [
              {
                text: `error: ${r.error.message}${r.error.exitName ? ` (${r.error.exitName})` : ''}`,
                tone: 'bad' as const,
              },
            ]
          : []),
        ...(r.error?.hint ? [{ text: `hint: ${r.error.hint}`, tone: 'warn' as const }] : []),
        { text: '' },
        ...progressLines(d.plan, r.steps),
        // A failed plan was never verified: no empty "Not verified:" heading (the error says why).
        ...(r.ok || r.verification.length > 0
          ? [
              { text: '' },
              {
                text: r.verified ? 'Verified:' : 'Not verified:',
                bold: true,
                tone: r.verified ? ('ok' as const) : ('warn' as const),
              },
              ...r.verification.map((v) => ({ text: `  ${v}` })),
            ]
          : []),
        ...(r.journalId ? [{ text: `journal: ${r.journalId} (view 7)`, tone: 'dim' as const }] : []),
      ];
      return frame(
        ` ${r.ok ? 'Done' : 'Failed'}: ${d.plan.title} `,
        r.ok ? 'ok' : 'bad',
        <ScrollText lines={lines} height={bodyH} width={w} offset={s.detailScroll} theme={theme} />,
        <Text color={toneColor(theme, 'dim')}>⏎/esc closes</Text>,
      );
    }
    case 'write':
      return frame(
        ' Enable WRITE mode ',
        'warn',
        <Box flexDirection="column">
          <Text wrap="truncate">{`Destructive actions (logout, delete device, flush, cleanup...) will be allowed on ${hostname}.`}</Text>
          <Text wrap="truncate" color={toneColor(theme, 'dim')}>
            Each one still shows its plan and asks again. :readonly switches back.
          </Text>
        </Box>,
        <TextInput
          label={`Type the hostname ${hostname} to confirm:`}
          value={d.typed}
          focused
          width={w}
          theme={theme}
        />,
      );
    case 'wizard':
      return frame(
        ' Attach: log in to an iSCSI target ',
        'accent',
        <WizardPane w={d} width={w} height={bodyH} theme={theme} />,
        <Text color={toneColor(theme, 'dim')} wrap="truncate">
          {wizardFooter(d)}
        </Text>,
      );
  }
}

function PromptLine(props: { s: UiState; theme: Theme; width: number }) {
  const { s, theme, width } = props;
  if (s.mode === 'filter') {
    return (
      <TextInput
        label="/"
        value={s.filter[s.view]}
        focused
        width={width}
        theme={theme}
        placeholder="filter"
      />
    );
  }
  if (s.mode === 'command') {
    const matches = completePalette(s.input);
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
          <Text
            key={m.name}
            inverse={m === sel}
            color={m === sel ? undefined : toneColor(theme, 'dim')}
          >{` ${m.name} `}</Text>
        ))}
      </Text>
    );
  }
  if (s.flash)
    return (
      <Text wrap="truncate" color={toneColor(theme, s.flash.tone)}>
        {s.flash.text}
      </Text>
    );
  return <Text> </Text>;
}

function Hints(props: { s: UiState; backend: ConsoleBackend; theme: Theme; scope: Scope | undefined }) {
  const { s, theme } = props;
  // No actions are offered on the first look: they are planned on the full read (console start-up).
  const partial = useStore(props.backend.store, (x) => x.snapshot?.partial !== undefined);
  let hints: string[];
  if (s.dialog) hints = [];
  else if (s.mode === 'filter') hints = ['type to filter', 'field=value', '!invert', '⏎ keep', 'esc clear'];
  else if (s.mode === 'command') hints = ['tab complete', '↑↓ choose', '⏎ run', 'esc cancel'];
  else {
    const acts = partial
      ? []
      : actionsFor(props.backend.actions, props.scope, s.write).map((a) => `${a.key} ${a.id}`);
    hints =
      s.detail !== undefined
        ? ['↑↓ scroll', 'esc back', ...acts, '? help']
        : ['⏎ detail', '/ filter', ': view', 'space mark', ...acts, '? help', 'q quit'];
  }
  return (
    <Text wrap="truncate" color={toneColor(theme, 'dim')}>
      {hints.join(' · ') || ' '}
    </Text>
  );
}

/** Runs the doctor engine when the view opens (and on ctrl-r via a new snapshot), like `iscsi-console doctor`. */
function DoctorPane(props: {
  backend: ConsoleBackend;
  ui: UiStore;
  width: number;
  height: number;
  theme: Theme;
  offset: number;
}) {
  const { backend, width, height, theme } = props;
  const [report, setReport] = useState<DoctorReport | { error: string } | undefined>();
  const token = useStore(props.ui, (x) => x.refreshToken);
  // Runs when the view opens and again on ctrl-r (not on every poll: doctor runs commands).
  // biome-ignore lint/correctness/useExhaustiveDependencies: token is the re-run trigger
  useEffect(() => {
    let live = true;
    if (!backend.runDoctor) return;
    backend.runDoctor().then(
      (r) => live && setReport(r),
      (e: Error) => live && setReport({ error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [backend, token]);
  if (!backend.runDoctor)
    return <Text color={toneColor(theme, 'dim')}>The doctor engine is not available here.</Text>;
  if (!report) return <Text color={toneColor(theme, 'dim')}>Running checks…</Text>;
  if ('error' in report)
    return <Text color={toneColor(theme, 'bad')}>{`doctor failed: ${report.error}`}</Text>;
  return <DoctorView report={report} width={width} height={height} theme={theme} offset={props.offset} />;
}
