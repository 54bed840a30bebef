/**
 * The view registry (k9s internal/view/registrar.go): the one list of view files. The view ids and
 * their type, the number keys, the tabs, the palette's view commands and the body switch are all
 * derived from it, so adding a view is one new file plus one line here.
 */
import { devicesView } from './devices.js';
import { doctorView } from './doctor.js';
import { eventsView } from './events.js';
import { journalView } from './journal.js';
import { recordsView } from './records.js';
import { sessionsView } from './sessions.js';
import { targetsView } from './targets.js';
import type { ViewData, ViewModule } from './view.js';
import { volumesView } from './volumes.js';

const REGISTERED = [
  sessionsView,
  targetsView,
  volumesView,
  devicesView,
  recordsView,
  eventsView,
  journalView,
  doctorView,
] as const;

export type ViewId = (typeof REGISTERED)[number]['id'];

/** Every view, in number-key order (the tabs and tab/shift-tab follow it). */
export const VIEWS: readonly ViewModule<ViewId>[] = [...REGISTERED].sort((a, b) => a.key - b.key);

export const VIEW_IDS: readonly ViewId[] = VIEWS.map((v) => v.id);

const BY_ID = new Map<string, ViewModule<ViewId>>(VIEWS.map((v) => [v.id, v]));

export function viewById(id: ViewId): ViewModule<ViewId> {
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
  return !view.beforeFirstRead && !data.snapshot ? [] : view.rows(data);
}
