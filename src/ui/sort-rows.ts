/** Sorting of a view's rows by a column (`>`, `<`, `~`); the rows themselves come from the view files. */
import type { TableRow } from './components/table-types.js';

/** Sorts rows by a column (numbers numerically); stable on the row key for equal values. */
export function sortRows(rows: TableRow[], sort: { column: string; desc: boolean } | undefined): TableRow[] {
  if (!sort) return rows;
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
