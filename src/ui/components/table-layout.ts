/**
 * Column widths from content and priority (docs/architecture.md, what lives where in the console): every column gets
 * what its content needs up to its floor (`width`), then the space left goes to columns by `grow`
 * priority (REASON first), each only up to its content; what is left after that is padding at the
 * end of the line, never blank cells inside a column. A column that is not growing never carries
 * 20–60 blank cells because its floor was written for a longer name than the node has.
 */
import type { Column, TableRow } from './table-types.js';

/** 2 cells for the mark/cursor gutter. */
const GUTTER = 2;
/** A growing column is never squeezed under this when the fixed columns overflow. */
const SQUEEZE_FLOOR = 8;

/** A column's growth priority: `grow`, else 1 for the old `flex`, else 0 (grows last). */
function growPriority(c: Column): number {
  return c.grow ?? (c.flex ? 1 : 0);
}

/** The header cells a column needs: its title and a sort arrow (so sorting never moves the columns). */
function titleNeed(c: Column): number {
  return c.title.length + 1;
}

const contentCache = new WeakMap<readonly TableRow[], WeakMap<readonly Column[], number[]>>();

/**
 * The widest cell of each column over all rows (not only those on screen, so scrolling never
 * moves the columns), once per rows array: the console's rows are memoised, so a cursor move
 * measures nothing.
 */
export function contentWidths(columns: readonly Column[], rows: readonly TableRow[]): number[] {
  let byCols = contentCache.get(rows);
  const hit = byCols?.get(columns);
  if (hit) return hit;
  const widths = columns.map(() => 0);
  for (const r of rows) {
    for (let i = 0; i < columns.length; i++) {
      const n = r.cells[i]?.length ?? 0;
      if (n > widths[i]!) widths[i] = n;
    }
  }
  if (!byCols) {
    byCols = new WeakMap();
    contentCache.set(rows, byCols);
  }
  byCols.set(columns, widths);
  return widths;
}

/**
 * Keeps a column's previous need when it shrank by a little only: a REASON that counts "9s",
 * "10s", "9s" would otherwise move every header after it on each refresh.
 */
export function steadyNeeds(prev: readonly number[] | undefined, next: readonly number[]): number[] {
  if (!prev || prev.length !== next.length) return [...next];
  return next.map((n, i) => (n < prev[i]! && prev[i]! - n <= 2 ? prev[i]! : n));
}

export interface ColumnLayout {
  cols: Column[];
  widths: number[];
}

/**
 * Which columns show at this width and how wide each is. `needs` are the content widths by column
 * (contentWidths, all columns); without them a column needs its floor and a growing one all it can get.
 */
export function layoutColumns(
  columns: readonly Column[],
  width: number,
  needs?: readonly number[],
): ColumnLayout {
  const shown = columns.map((c, i) => ({ c, i })).filter(({ c }) => !c.hideBelow || width >= c.hideBelow);
  const cols = shown.map((x) => x.c);
  const want = shown.map(({ c, i }) => {
    const content = needs ? Math.max(titleNeed(c), needs[i] ?? 0) : growPriority(c) > 0 ? width : c.width;
    return c.max === undefined ? content : Math.min(c.max, Math.max(content, titleNeed(c)));
  });
  const widths = cols.map((c, k) => Math.min(Math.max(c.width, titleNeed(c)), want[k]!));
  const gaps = GUTTER + Math.max(0, cols.length - 1);
  let free = width - gaps - widths.reduce((a, b) => a + b, 0);
  // Growth by priority, highest first; ties left to right. First round: each growing column up to
  // its `ample` share (REASON's first words, then a name whole); second: each up to its content.
  const order = cols
    .map((_, k) => k)
    .sort((a, b) => growPriority(cols[b]!) - growPriority(cols[a]!) || a - b);
  for (const round of [0, 1]) {
    for (const k of order) {
      if (free <= 0) break;
      const c = cols[k]!;
      const upTo = round === 0 && c.ample !== undefined ? Math.min(want[k]!, c.ample) : want[k]!;
      const add = Math.min(free, upTo - widths[k]!);
      if (add > 0) {
        widths[k]! += add;
        free -= add;
      }
    }
  }
  // Too narrow for the floors: squeeze growing columns, lowest priority first, before Ink cuts the line.
  for (const k of [...order].reverse()) {
    if (free >= 0) break;
    if (growPriority(cols[k]!) === 0) continue;
    const take = Math.min(-free, Math.max(0, widths[k]! - SQUEEZE_FLOOR));
    widths[k]! -= take;
    free += take;
  }
  return { cols, widths };
}
