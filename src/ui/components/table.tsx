/**
 * A windowed table: renders only the rows that fit (§2.4: Ink has no viewport, so slicing is ours),
 * with memoised rows whose props are primitives, so a refresh re-renders only changed lines.
 */
import { Box, Text } from 'ink';
import { memo, useRef } from 'react';
import { padCell } from '../format.js';
import { type Theme, type Tone, toneColor } from '../theme.js';
import { type Column, layoutColumns, type TableRow } from './table-types.js';

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
  middles: string;
  selected: boolean;
  marked: boolean;
  theme: Theme;
}

const SEP = '\u0000';

/** One line; all props are strings/booleans so React.memo's shallow compare is exact. */
const Row = memo(function Row({ cells, tones, widths, aligns, middles, selected, marked, theme }: RowProps) {
  const c = cells.split(SEP);
  const t = tones.split(SEP) as Tone[];
  const w = widths.split(',').map(Number);
  const a = aligns.split(',');
  const m = middles.split(',');
  return (
    <Text wrap="truncate" inverse={selected}>
      <Text color={toneColor(theme, 'accent')}>{`${selected ? '›' : ' '}${marked ? '*' : ' '}`}</Text>
      {w.map((width, i) => (
        <Text key={String(i)} color={selected ? undefined : toneColor(theme, t[i] || undefined)}>
          {(i > 0 ? ' ' : '') + padCell(c[i] ?? '', width, a[i] === 'right' ? 'right' : 'left', m[i] === '1')}
        </Text>
      ))}
    </Text>
  );
});

export function Table(props: TableProps) {
  const { columns, rows, cursor, marks, width, height, theme, sort } = props;
  const { cols, widths } = layoutColumns(columns, width);
  const visible = Math.max(0, height - 1);
  const offsetRef = useRef(0);
  const offset = windowOffset(offsetRef.current, cursor, visible, rows.length);
  offsetRef.current = offset;
  const colIdx = cols.map((c) => columns.indexOf(c));
  const widthsKey = widths.join(',');
  const aligns = cols.map((c) => c.align ?? 'left').join(',');
  const middles = cols.map((c) => (c.middle ? '1' : '0')).join(',');
  const header = cols
    .map((c, i) => {
      const arrow = sort?.column === c.id ? (sort.desc ? '▼' : '▲') : '';
      return padCell(c.title + arrow, widths[i]!, c.align);
    })
    .join(' ');
  return (
    <Box flexDirection="column" height={height} width={width} overflow="hidden">
      <Text bold wrap="truncate" color={toneColor(theme, 'accent')}>{`  ${header}`}</Text>
      {rows.length === 0 ? (
        <Text color={toneColor(theme, 'dim')}>{`  ${props.emptyText ?? '(nothing)'}`}</Text>
      ) : (
        rows
          .slice(offset, offset + visible)
          .map((r, i) => (
            <Row
              key={r.key}
              cells={colIdx.map((ci) => r.cells[ci] ?? '').join(SEP)}
              tones={colIdx.map((ci) => r.tones[ci] ?? '').join(SEP)}
              widths={widthsKey}
              aligns={aligns}
              middles={middles}
              selected={offset + i === cursor}
              marked={marks.has(r.key)}
              theme={theme}
            />
          ))
      )}
    </Box>
  );
}
