/** Data shapes of the windowed table, shared by row builders and the component. */
import type { Scope } from '../../engine/actions/types.js';
import type { Filterable } from '../filter.js';
import type { Tone } from '../theme.js';

export interface Column {
  id: string;
  title: string;
  /** Fixed width in cells; the `flex` column takes what is left (never under 8). */
  width: number;
  flex?: boolean;
  align?: 'left' | 'right';
  /** Cut the middle instead of the end (IQNs, paths). */
  middle?: boolean;
  /** Hidden when the terminal is narrower than this (narrow layout). */
  hideBelow?: number;
}

export interface TableRow extends Filterable {
  /** Fingerprint: React key, cursor and marks all use it. */
  key: string;
  cells: string[];
  tones: Tone[];
  /** What actions on this row apply to. */
  scope?: Scope;
  label?: string;
  /** Fingerprint actions use when it differs from the row key (a target row acts on its session). */
  actionKey?: string;
  /** Sort keys by column id (numbers sort numerically). */
  sort: Record<string, string | number>;
}

/** Resolves which columns show at this width and how wide the flex column is. */
export function layoutColumns(
  columns: readonly Column[],
  width: number,
): { cols: Column[]; widths: number[] } {
  const cols = columns.filter((c) => !c.hideBelow || width >= c.hideBelow);
  // 2 cells for the mark/cursor gutter, 1 between columns.
  const fixed = cols.reduce((n, c) => n + (c.flex ? 0 : c.width), 0) + cols.length - 1 + 2;
  const flexCount = cols.filter((c) => c.flex).length || 1;
  const widths = cols.map((c) => (c.flex ? Math.max(8, Math.floor((width - fixed) / flexCount)) : c.width));
  return { cols, widths };
}
