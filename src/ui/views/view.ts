/**
 * The shape of a registered view (k9s internal/view/registrar.go: one file per resource). A view
 * file declares everything the console needs to show it: its id, its number key and palette
 * names, its columns, how rows are built from the node, and (when a table is not enough) its body.
 * `views/registry.ts` lists the view files; VIEW_IDS, the palette, the rows and the body switch
 * are all derived from that list (docs/architecture.md#where-a-change-goes).
 *
 * A view never imports the UI store: what it needs of the console's state comes in as props, so
 * the view files sit below view-store.ts and the import graph has no cycle.
 */
import type { ReactNode } from 'react';
import type { ConsoleBackend, JournalEntry, NodeEvent } from '../../app/backend.js';
import { type StatusPart, type StatusRef, statusParts } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import type { Dialog } from '../dialogs/dialog-types.js';
import type { Theme } from '../theme.js';

/** One object `y` shows: where it sits in what the CLI prints (a jq path), and the object itself. */
export type JsonPart = StatusPart;

/** What a view's rows are built from (each view reads only the parts it declares). */
export interface ViewData {
  snapshot: Snapshot | undefined;
  events: readonly NodeEvent[];
  journal: readonly JournalEntry[];
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
}

export interface ViewModule<Id extends string = string> {
  id: Id;
  /** The number key that jumps here (1-based; also the view's place in the tabs and in tab order). */
  key: number;
  /** Palette names besides the id (`:s`, `:se`). */
  aliases: readonly string[];
  /** One line for the palette and `?` help. */
  help: string;
  columns: readonly Column[];
  /** Rows before filter and sort. */
  rows(data: ViewData): TableRow[];
  /** The node stores's event log feeds this view (it re-renders on every event only while shown). */
  readsEvents?: boolean;
  /** The action journal feeds this view (re-read on every snapshot and dialog change while shown). */
  readsJournal?: boolean;
  /**
   * The view has something to show before the node's first read (the event log, the journal);
   * other views say "Reading the node…" until then, and have no rows.
   */
  beforeFirstRead?: boolean;
  /** With no row key remembered, the cursor sits on the last row and follows new ones (htop F). */
  followTail?: boolean;
  /** The tabs show no "n of m" counter (a view that is not a list). */
  noCounter?: boolean;
  /** ↑↓/PgUp/PgDn/g/G scroll the body instead of moving the cursor (a detail, a report). */
  scrolls?(detail: string | undefined): boolean;
  /** How many lines the scrolled body has (for clamping); unknown → unbounded. */
  scrollLines?(snapshot: Snapshot | undefined, detail: string | undefined): number | undefined;
  /** ⏎ (and `d`) on a row: the view and detail to show, or a dialog to open (undefined: nothing opens). */
  open?(row: TableRow): { view: string; detail: string } | { dialog: Dialog } | undefined;
  /**
   * `y` on a row: the objects it stands for, exactly as the CLI prints them (`status --json`,
   * `watch --json`, the journal file); undefined or empty: nothing to show.
   */
  json?(row: TableRow, data: ViewData): readonly JsonPart[] | undefined;
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

/** Declares a view; keeps its id a literal type so the registry can derive `ViewId` from it. */
export function defineView<const Id extends string>(view: ViewModule<Id>): ViewModule<Id> {
  return view;
}
