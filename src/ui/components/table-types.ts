/** Data shapes of the windowed table, shared by row builders and the component. */
import type { Scope } from '../../engine/actions/types.js';
import type { Filterable } from '../filter.js';
import type { Tone } from '../theme.js';

/**
 * How a cell longer than its column is cut: the end (default), the middle (both ends matter),
 * the start on a part boundary (the end tells rows apart: kubelet dir names; a cell that leads
 * with a name and a space, `pvc-1 plugins/…/globalmount`, keeps its name instead), or the middle unless
 * two different names on screen would then read the same (target IQNs: cut around where they differ).
 */
export type Elide = 'end' | 'middle' | 'start' | 'unique';

/**
 * A column sized by its content (components/table-layout.ts): it gets what its widest cell needs
 * up to `width`, then space beyond that by `grow` priority up to its content (or `max`).
 */
export interface Column {
  id: string;
  title: string;
  /** Floor in cells: what the column keeps when space is short (less when its content is shorter). */
  width: number;
  /** Growth priority for space beyond the floors: higher first (REASON highest); 0 grows last. */
  grow?: number;
  /**
   * Grows only this far before the columns after it in priority get their share; the rest of its
   * content after theirs (REASON takes its first words, then TARGET its whole name, then REASON
   * the rest). Without it a column grows to its content in one go.
   */
  ample?: number;
  /** Never wider than this, however long the content. */
  max?: number;
  /** Same as `grow: 1` (older column definitions). */
  flex?: boolean;
  align?: 'left' | 'right';
  /** Same as `elide: 'middle'`. */
  middle?: boolean;
  elide?: Elide;
  /** Hidden when the terminal is narrower than this (narrow layout). */
  hideBelow?: number;
}

/** The column's elision (`middle: true` is the older spelling of `elide: 'middle'`). */
export function elideOf(c: Column): Elide {
  return c.elide ?? (c.middle ? 'middle' : 'end');
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
