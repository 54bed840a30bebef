/**
 * The view registry (k9s internal/view/registrar.go): the one list of view files, in tab order,
 * with what leads the admin to each (lazygit's numbered panels, k9s's `:` aliases). The view ids
 * and their type, the number keys, the tabs, the palette's view commands and the body switch are
 * all derived from it, so adding a view is one new file plus one line here.
 */
import type { Scope } from '../../engine/actions/types.js';
import type { TableRow } from '../components/table-types.js';
import { devicesView } from './devices.js';
import { doctorView } from './doctor.js';
import { eventsView } from './events.js';
import { journalView } from './journal.js';
import { recordsView } from './records.js';
import { sessionsView } from './sessions.js';
import { targetsView } from './targets.js';
import type { ViewData, ViewModule } from './view.js';
import { volumesView } from './volumes.js';

/**
 * Each view's place is its number key and its tab; `aliases` are its palette names besides its id,
 * `help` its line in the palette and `?` help. The names stand together so that a name two views
 * would claim shows at a glance (test/ui/registry.test.ts fails on one).
 */
const REGISTERED = [
  { view: sessionsView, aliases: ['s', 'se', 'session'], help: 'iSCSI sessions (home)' },
  { view: targetsView, aliases: ['t', 'portals', 'p'], help: 'Targets and the portal→host map' },
  { view: volumesView, aliases: ['v', 'kubelet', 'pv'], help: 'Kubelet iSCSI volumes' },
  { view: devicesView, aliases: ['d', 'dev', 'multipath', 'mp'], help: 'SCSI devices and multipath maps' },
  {
    view: recordsView,
    aliases: ['r', 'nodes', 'node', 'ifaces'],
    help: 'open-iscsi node records and ifaces',
  },
  { view: eventsView, aliases: ['e', 'ev'], help: 'Live events from the watchers' },
  { view: journalView, aliases: ['j', 'log'], help: 'Every action run: commands and exit codes' },
  { view: doctorView, aliases: ['doc'], help: 'Node checks' },
] as const;

export type ViewId = (typeof REGISTERED)[number]['view']['id'];

/** A view with how the admin reaches it. */
interface RegisteredView extends ViewModule<ViewId> {
  /** The number key that jumps here (1-based: its place in the list above, the tabs and tab order). */
  key: number;
  /** Palette names besides the id (`:s`, `:se`). */
  aliases: readonly string[];
  /** One line for the palette and `?` help. */
  help: string;
}

/** Every view, in number-key order (the tabs and tab/shift-tab follow it). */
export const VIEWS: readonly RegisteredView[] = REGISTERED.map(({ view, aliases, help }, i) => ({
  ...view,
  key: i + 1,
  aliases,
  help,
}));

export const VIEW_IDS: readonly ViewId[] = VIEWS.map((v) => v.id);

const BY_ID = new Map<string, RegisteredView>(VIEWS.map((v) => [v.id, v]));

export function viewById(id: ViewId): RegisteredView {
  return BY_ID.get(id)!;
}

export function isViewId(id: string): id is ViewId {
  return BY_ID.has(id);
}

/** The view a number key jumps to (lazygit panels). */
export function viewForDigit(input: string): ViewId | undefined {
  const n = Number(input);
  return Number.isInteger(n) ? VIEWS.find((v) => v.key === n)?.id : undefined;
}

/** A view's rows before filter and sort; a view over the node has none until the first read. */
export function viewRows(view: ViewModule, data: ViewData) {
  return !view.feed && !data.snapshot ? [] : view.rows(data);
}

/**
 * What the action keys apply to: in an open detail, the row it shows (a session's detail opened from
 * another view is that session even when a filter hides its row), else the cursor row.
 */
export function actionScope(
  view: ViewId,
  detail: string | undefined,
  rows: readonly TableRow[],
  cursorRow: TableRow | undefined,
): Scope | undefined {
  if (detail === undefined) return cursorRow?.scope;
  return rows.find((r) => r.key === detail)?.scope ?? (view === 'sessions' ? 'session' : undefined);
}
