/**
 * The shape of a registered view (k9s internal/view/registrar.go: one file per resource). A view
 * file declares everything the console needs to show it: its id, its columns, where its rows come
 * from and how they are built, and (when a table is not enough) its body. `views/registry.ts` lists
 * the view files in tab order with the palette names that lead to each; VIEW_IDS, the number keys,
 * the palette, the rows and the body switch are all derived from that list
 * (docs/architecture.md#where-a-change-goes).
 *
 * A view never imports the UI store: what it needs of the console's state comes in as props, so
 * the view files sit below view-store.ts and the import graph has no cycle.
 */
import type { ReactNode } from 'react';
import type { ConsoleBackend, JournalEntry, NodeEvent } from '../../app/backend.js';
import { type StatusPart, type StatusRef, statusParts } from '../../app/domain.js';
import type { DoctorReport } from '../../engine/doctor/types.js';
import type { Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import type { Dialog } from '../dialogs/dialog-types.js';
import type { Theme } from '../theme.js';

/** One object `y` shows: where it sits in what the CLI prints (a jq path), and the object itself. */
export type JsonPart = StatusPart;

/** The Doctor view's last run: its report, or why it failed; undefined while the checks run. */
export type DoctorFeed = { report: DoctorReport } | { error: string } | undefined;

/** What a view's rows are built from (each view reads only the parts it declares). */
export interface ViewData {
  snapshot: Snapshot | undefined;
  events: readonly NodeEvent[];
  journal: readonly JournalEntry[];
  /** The checks' last run (the doctor feed); absent outside the Doctor view. */
  doctor?: DoctorFeed;
}

/** What a view's body is drawn from: the console's state for this view, as plain values. */
export interface ViewBodyProps {
  backend: ConsoleBackend;
  theme: Theme;
  /** The view's rows as shown (filtered and sorted). */
  rows: TableRow[];
  columns: readonly Column[];
  /** The cursor row. */
  idx: number;
  width: number;
  height: number;
  snapshot: Snapshot | undefined;
  /** Host clock at this render (the session detail's recovery countdown). */
  now: number;
  /** Fingerprint of the open detail, if any. */
  detail: string | undefined;
  /** Scroll offset of the detail (or of a view that scrolls as a whole). */
  scroll: number;
  marks: ReadonlySet<string>;
  sort: { column: string; desc: boolean } | undefined;
  filter: string;
  /** Bumped by ctrl-r: views that run commands re-run on it. */
  refreshToken: number;
  /** The doctor feed (the Doctor view's checks). */
  doctor: DoctorFeed;
}

/**
 * Where a view's rows come from besides the node's snapshot: the watchers' event log (re-rendered
 * on every event), the action journal (re-read on every snapshot and dialog change) or the doctor's
 * checks (run when the view opens and on ctrl-r).
 */
type ViewFeed = 'events' | 'journal' | 'doctor';

/** What `y` says it shows, by where the view's rows come from: the CLI output with the same objects. */
const JSON_SOURCE: Record<ViewFeed | 'snapshot', string> = {
  snapshot: 'status --json',
  events: 'watch --json',
  journal: 'the journal file',
  doctor: 'doctor --json',
};

export interface ViewModule<Id extends string = string> {
  id: Id;
  columns: readonly Column[];
  /**
   * A feed view lists the event log or the journal: it reads its feed only while shown, and has
   * rows before the node's first read (other views say "Reading the node…" until then).
   */
  feed?: ViewFeed;
  /** Rows before filter and sort. */
  rows(data: ViewData): TableRow[];
  /** With no row key remembered, the cursor sits on the last row and follows new ones (htop F). */
  followTail?: boolean;
  /** The tabs show no "n of m" counter (a view that is not a list). */
  noCounter?: boolean;
  /** ↑↓/PgUp/PgDn/g/G scroll the body instead of moving the cursor (a detail, a report). */
  scrolls?(detail: string | undefined): boolean;
  /**
   * How many lines the scrolled body has at this width (for clamping; a detail wraps its long
   * lines, dialogs/plan-lines.ts wrapLines); unknown → unbounded.
   */
  scrollLines?(
    snapshot: Snapshot | undefined,
    detail: string | undefined,
    width: number,
    data?: ViewData,
  ): number | undefined;
  /** ⏎ (and `d`) on a row: the view and detail to show, or a dialog to open (undefined: nothing opens). */
  open?(row: TableRow): { view: string; detail: string } | { dialog: Dialog } | undefined;
  /**
   * `y` on a row: the objects it stands for, exactly as the CLI prints them (`status --json`,
   * `watch --json`, the journal file); undefined or empty: nothing to show.
   */
  json?(row: TableRow, data: ViewData): readonly JsonPart[] | undefined;
  /**
   * A view whose rows come from commands it runs (doctor): run while the view is shown, when it
   * opens and on every ctrl-r, never on a poll (src/ui/view-run.ts).
   */
  run?(backend: ConsoleBackend): Promise<DoctorFeed>;
  /** The body when a plain table is not enough (default: the table of `rows`). */
  Body?(props: ViewBodyProps): ReactNode;
}

/** Rows built from the snapshot alone (most views). */
export function fromSnapshot(rows: (snapshot: Snapshot) => TableRow[]): ViewModule['rows'] {
  return ({ snapshot }) => (snapshot ? rows(snapshot) : []);
}

/** `y` from the status document: the row's objects in `status --json` (docs/status-schema.md). */
export function fromStatus(ref: (row: TableRow) => StatusRef | undefined): NonNullable<ViewModule['json']> {
  return (row, { snapshot }) => {
    const r = ref(row);
    return snapshot && r ? statusParts(snapshot, r) : undefined;
  };
}

/** The CLI output whose objects the view's `y` shows ("status --json"). */
export function jsonSource(view: Pick<ViewModule, 'feed'>): string {
  return JSON_SOURCE[view.feed ?? 'snapshot'];
}

/** Declares a view; keeps its id a literal type so the registry can derive `ViewId` from it. */
export function defineView<const Id extends string>(view: ViewModule<Id>): ViewModule<Id> {
  return view;
}
