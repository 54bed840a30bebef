/**
 * Rows that belong together (a map and its paths, a target and its portals) move as one in the
 * default order (problems first, stable: src/ui/sort-rows.ts): every row of the group sorts by the
 * group's worst problem, so a failed path never leaves its map nor a portal its target.
 */
import type { TableRow } from '../components/table-types.js';

export function asGroup(rows: TableRow[]): TableRow[] {
  const keys = rows.map((r) => r.sort.problem).filter((k): k is number => typeof k === 'number');
  if (keys.length === 0) return rows;
  const worst = Math.min(...keys);
  return rows.map((r) => ({ ...r, sort: { ...r.sort, problem: worst } }));
}

/** The tree mark of a group's child row: `├ ` for all but the last, `└ ` for the last. */
export const treeMark = (i: number, count: number) => (i === count - 1 ? '└ ' : '├ ');
