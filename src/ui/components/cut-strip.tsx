/**
 * The strip under a table that reads the cursor row's cut cells whole, wrapped, without a key: at
 * 80 columns a REASON ("portal 10.0.0.12:3260 down; session FAILED; sdg blocked"), a target name or
 * a pod is cut in its column, and the admin reads why on the row the cursor is on. Cells are listed
 * most important first (the columns' growth priority: REASON/PROBLEMS, then the names), each after
 * its column's title. Its height depends on the columns' content and the terminal, never on the
 * cursor, so moving the cursor never moves the rows; what is still longer than the strip ends in
 * `…` and reads whole in the row's detail (⏎).
 */
import { Box } from 'ink';
import { safeText } from '../../app/domain.js';
import { wrapLine } from '../dialogs/wrap-lines.js';
import { Text } from './safe-text.js';
import type { Column, TableRow } from './table-types.js';

/** Between two cells on the strip. */
const SEP = '  ·  ';
/** The cursor's mark, as in the table's gutter. */
const LEAD = '› ';

/** Most lines the strip takes: 2 on a short terminal's body, 3 from 20 body lines. */
function maxLines(bodyHeight: number): number {
  return bodyHeight >= 20 ? 3 : 2;
}

/** The shown columns that some row's cell does not fit, most important first (grow, then left to right). */
function cutColumns(cols: readonly Column[], widths: readonly number[], needs: readonly number[]): number[] {
  return cols
    .map((c, k) => ({ c, k }))
    .filter(({ k }) => (needs[k] ?? 0) > widths[k]!)
    .sort((a, b) => (b.c.grow ?? (b.c.flex ? 1 : 0)) - (a.c.grow ?? (a.c.flex ? 1 : 0)) || a.k - b.k)
    .map(({ k }) => k);
}

/**
 * Lines the strip reserves: none when every cell fits its column, else what the longest cut cells
 * would need (from the columns' content widths), at most 2–3 and never more than a third of the body.
 */
export function cutStripHeight(
  cols: readonly Column[],
  widths: readonly number[],
  needs: readonly number[],
  width: number,
  bodyHeight: number,
): number {
  const cut = cutColumns(cols, widths, needs);
  if (cut.length === 0 || bodyHeight < 6) return 0;
  const chars =
    cut.reduce((n, k) => n + cols[k]!.title.length + 1 + needs[k]!, 0) + SEP.length * (cut.length - 1);
  const lines = Math.ceil((LEAD.length + chars) / Math.max(1, width - 2));
  return Math.max(1, Math.min(lines, maxLines(bodyHeight), Math.floor(bodyHeight / 3)));
}

/** The strip's lines for one row: its cells that do not fit their columns, whole, wrapped to `width`. */
export function cutStripLines(
  cols: readonly Column[],
  colIdx: readonly number[],
  widths: readonly number[],
  row: TableRow | undefined,
  width: number,
  height: number,
): string[] {
  if (!row || height <= 0) return [];
  const parts: string[] = [];
  for (const k of cutColumns(
    cols,
    widths,
    cols.map((_, i) => safeText(row.cells[colIdx[i]!] ?? '').length),
  )) {
    // A title of two words ("GLOBAL DIR") never breaks across the strip's lines.
    parts.push(`${cols[k]!.title.replaceAll(' ', '\u00a0')} ${safeText(row.cells[colIdx[k]!] ?? '')}`);
  }
  if (parts.length === 0) return [];
  const lines = wrapLine(`${LEAD}${parts.join(SEP)}`, width);
  if (lines.length <= height) return lines;
  const kept = lines.slice(0, height);
  const last = kept[height - 1]!;
  kept[height - 1] = `${last.length >= width ? last.slice(0, width - 1) : last}…`;
  return kept;
}

/** The strip itself: `height` lines under the table. */
export function CutStrip(props: { lines: readonly string[]; height: number }) {
  const { lines, height } = props;
  return (
    <Box flexDirection="column" height={height} flexShrink={0}>
      {Array.from({ length: height }, (_, i) => (
        <Text key={String(i)} wrap="truncate">
          {lines[i] ?? ' '}
        </Text>
      ))}
    </Box>
  );
}
