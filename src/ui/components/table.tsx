/**
 * A windowed table: renders only the rows that fit (docs/architecture.md#large-lists: Ink has no viewport, so slicing is ours),
 * with memoised rows whose props are primitives, so a refresh re-renders only changed lines.
 */
import { Box, Text } from 'ink';
import { memo, useRef } from 'react';
import { safeText } from '../../app/domain.js';
import { padCell } from '../format.js';
import { type Theme, type Tone, toneColor } from '../theme.js';
import { fitColumn } from './cell-fit.js';
import { CutStrip, cutStripHeight, cutStripLines } from './cut-strip.js';
import { contentWidths, layoutColumns, steadyNeeds } from './table-layout.js';
import { type Column, elideOf, type TableRow } from './table-types.js';

export interface TableProps {
  columns: readonly Column[];
  rows: readonly TableRow[];
  cursor: number;
  marks: ReadonlySet<string>;
  width: number;
  /** Lines available, header included. */
  height: number;
  theme: Theme;
  /** Sorted column (marked ▲/▼ in the header). */
  sort?: { column: string; desc: boolean } | undefined;
  emptyText?: string;
  /** Reads the cursor row's cut cells whole under the table (cut-strip.tsx). */
  strip?: boolean;
}

/** First visible row so that `cursor` stays in view, moving the window as little as possible. */
export function windowOffset(prev: number, cursor: number, visible: number, total: number): number {
  let off = prev;
  if (cursor < off) off = cursor;
  if (cursor >= off + visible) off = cursor - visible + 1;
  return Math.max(0, Math.min(off, Math.max(0, total - visible)));
}

interface RowProps {
  cells: string;
  tones: string;
  widths: string;
  aligns: string;
  selected: boolean;
  marked: boolean;
  /** The padded row fits the table width (else it is one truncated Text, as Ink cuts it). */
  fits: boolean;
  theme: Theme;
}

const SEP = '\u0000';

/**
 * Printable ASCII: Ink (string-width, log-update) measures such a string by its length; one
 * symbol (●, ✓, …) sends the WHOLE string through grapheme segmentation, several times per frame
 * for every line on screen. That was most of a frame's cost with a full table (bench/README.md profile).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

interface Segment {
  text: string;
  color: string | undefined;
}

/**
 * Splits a line into runs that are all printable ASCII or not, each run a list of same-colour
 * segments, so the long ASCII runs take string-width's fast path and only the short runs with
 * symbols are segmented.
 */
export function asciiRuns(segments: readonly Segment[]): Segment[][] {
  const runs: Segment[][] = [];
  let ascii: boolean | undefined;
  for (const seg of segments) {
    if (seg.text === '') continue;
    const isAscii = PRINTABLE_ASCII.test(seg.text);
    const run = runs[runs.length - 1];
    if (!run || isAscii !== ascii) {
      runs.push([{ ...seg }]);
      ascii = isAscii;
      continue;
    }
    const last = run[run.length - 1]!;
    if (last.color === seg.color) last.text += seg.text;
    else run.push({ ...seg });
  }
  return runs;
}

/** One line; all props are strings/booleans so React.memo's shallow compare is exact. */
const Row = memo(function Row({ cells, tones, widths, aligns, selected, marked, fits, theme }: RowProps) {
  const c = cells.split(SEP);
  const t = tones.split(SEP) as Tone[];
  const w = widths.split(',').map(Number);
  const a = aligns.split(',');
  const gutter = `${selected ? '›' : ' '}${marked ? '*' : ' '}`;
  const segments: Segment[] = [
    // A blank gutter needs no colour codes (they would only be parsed again on every frame).
    { text: gutter, color: gutter.trim() ? toneColor(theme, 'accent') : undefined },
    ...w.flatMap((width, i) => [
      // An uncoloured gap between cells: two coloured cells back to back re-serialise differently
      // in Ink's screen buffer, which then tokenizes the line a second time.
      { text: i > 0 ? ' ' : '', color: undefined },
      {
        // Already cut to the column by fitColumn; padCell only pads (and escapes).
        text: padCell(c[i] ?? '', width, a[i] === 'right' ? 'right' : 'left'),
        color: selected ? undefined : toneColor(theme, t[i] || undefined),
      },
    ]),
  ];
  const spans = (segs: readonly Segment[]) =>
    segs.map((seg, i) => (
      <Text key={String(i)} color={seg.color}>
        {seg.text}
      </Text>
    ));
  // Too wide (narrow terminal, fixed columns): Ink truncates the whole line with an ellipsis.
  if (!fits) {
    return (
      <Text wrap="truncate" inverse={selected}>
        {spans(segments)}
      </Text>
    );
  }
  return (
    <Box height={1} flexShrink={0}>
      {asciiRuns(segments).map((run, i) => (
        <Text key={String(i)} inverse={selected} wrap="truncate">
          {spans(run)}
        </Text>
      ))}
    </Box>
  );
});

/** The rows on screen as per-column lists of cell texts, cut to their columns (cell-fit.ts). */
function fittedCells(
  cols: readonly Column[],
  colIdx: readonly number[],
  widths: readonly number[],
  shown: readonly TableRow[],
): string[] {
  const byCol = cols.map((c, k) =>
    fitColumn(
      shown.map((r) => safeText(r.cells[colIdx[k]!] ?? '')),
      widths[k]!,
      elideOf(c),
    ),
  );
  return shown.map((_, i) => byCol.map((col) => col[i]!).join(SEP));
}

export function Table(props: TableProps) {
  const { columns, rows, cursor, marks, width, height, theme, sort } = props;
  // Content widths over every row, kept steady through small shrinks (no header jitter).
  const needsRef = useRef<{ columns: readonly Column[]; needs: number[] } | undefined>(undefined);
  const prevNeeds = needsRef.current?.columns === columns ? needsRef.current.needs : undefined;
  const needs = steadyNeeds(prevNeeds, contentWidths(columns, rows));
  needsRef.current = { columns, needs };
  const { cols, widths } = layoutColumns(columns, width, needs);
  const colIdx = cols.map((c) => columns.indexOf(c));
  const stripHeight = props.strip
    ? cutStripHeight(
        cols,
        widths,
        colIdx.map((i) => needs[i]!),
        width,
        height,
      )
    : 0;
  const visible = Math.max(0, height - 1 - stripHeight);
  const offsetRef = useRef(0);
  const offset = windowOffset(offsetRef.current, cursor, visible, rows.length);
  offsetRef.current = offset;
  // Gutter, cells and the single spaces between them.
  const fits = 2 + widths.reduce((n, x) => n + x, 0) + Math.max(0, widths.length - 1) <= width;
  const widthsKey = widths.join(',');
  const aligns = cols.map((c) => c.align ?? 'left').join(',');
  const header = cols
    .map((c, i) => {
      const arrow = sort?.column === c.id ? (sort.desc ? '▼' : '▲') : '';
      return padCell(c.title + arrow, widths[i]!, c.align);
    })
    .join(' ');
  const shown = rows.slice(offset, offset + visible);
  const cells = fittedCells(cols, colIdx, widths, shown);
  return (
    <Box flexDirection="column" height={height} width={width} overflowY="hidden">
      <Text bold wrap="truncate" color={toneColor(theme, 'accent')}>{`  ${header}`}</Text>
      {rows.length === 0 ? (
        <Text color={toneColor(theme, 'dim')}>{`  ${safeText(props.emptyText ?? '(nothing)')}`}</Text>
      ) : (
        shown.map((r, i) => (
          <Row
            key={r.key}
            cells={cells[i]!}
            tones={colIdx.map((ci) => r.tones[ci] ?? '').join(SEP)}
            widths={widthsKey}
            aligns={aligns}
            selected={offset + i === cursor}
            marked={marks.has(r.key)}
            fits={fits}
            theme={theme}
          />
        ))
      )}
      {stripHeight > 0 && (
        <CutStrip
          lines={cutStripLines(cols, colIdx, widths, rows[cursor], width, stripHeight)}
          height={stripHeight}
        />
      )}
    </Box>
  );
}
