/**
 * Sorting of a view's rows by a column (`>`, `<`, `~`); the rows themselves come from the view files.
 * With no column chosen, rows that carry a `problem` sort key (problems.ts problemSortKey) come
 * problems first — the worst severity, then the longest-standing — and the rest keep the view's
 * own order (what is wrong on top). Views without problems (records, events, journal)
 * keep theirs.
 */
import type { TableRow } from './components/table-types.js';
import { compileFilter } from './filter.js';

/** The default order: problems first, stable (equal keys keep the view's order, e.g. by sid). */
function problemsFirst(rows: TableRow[]): TableRow[] {
  if (!rows.some((r) => typeof r.sort.problem === 'number')) return rows;
  const key = (r: TableRow) => (typeof r.sort.problem === 'number' ? r.sort.problem : Number.MAX_VALUE);
  return [...rows].sort((a, b) => key(a) - key(b));
}

/** Sorts rows by a column (numbers numerically); stable on the row key for equal values. */
export function sortRows(rows: TableRow[], sort: { column: string; desc: boolean } | undefined): TableRow[] {
  if (!sort) return problemsFirst(rows);
  const dir = sort.desc ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = a.sort[sort.column];
    const y = b.sort[sort.column];
    let c = 0;
    if (typeof x === 'number' && typeof y === 'number') c = x - y;
    else c = String(x ?? '').localeCompare(String(y ?? ''));
    return c === 0 ? a.key.localeCompare(b.key) : c * dir;
  });
}

/** The rows a view shows: its rows through the `/` filter, then in the chosen (or default) order. */
export function shownRows(
  rows: readonly TableRow[],
  filter: string,
  sort: { column: string; desc: boolean } | undefined,
): TableRow[] {
  return sortRows(rows.filter(compileFilter<TableRow>(filter)), sort);
}

/**
 * The order the rows are in, for the tab bar: the chosen column with its direction (`▲SID`), the
 * default problems-first order (`▼SEVERITY`, worst first), or nothing where a view keeps its own
 * (records, events, journal).
 */
export function orderLabel(
  columns: readonly { id: string; title: string }[],
  rows: readonly TableRow[],
  sort: { column: string; desc: boolean } | undefined,
): string {
  if (sort) {
    const title = columns.find((c) => c.id === sort.column)?.title ?? sort.column;
    return `${sort.desc ? '▼' : '▲'}${title}`;
  }
  return rows.some((r) => typeof r.sort.problem === 'number') ? '▼SEVERITY' : '';
}
