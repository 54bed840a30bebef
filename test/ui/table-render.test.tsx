/**
 * The windowed table's rows are split into runs of printable ASCII and runs with symbols (so Ink
 * measures most of a line by its length, bench/README.md); the screen must read exactly as one padded line
 * per row did: same columns, same truncation, selection in inverse video, no colour in mono.
 */
import { describe, expect, it } from 'vitest';
import type { Column, TableRow } from '../../src/ui/components/table-types.js';
import type { Theme } from '../../src/ui/theme.js';

// Colour escapes are what these tests look at: chalk (under Ink) decides its level when it loads,
// and a test runner's stdout is no terminal. The modules that load it come after this line.
process.env.FORCE_COLOR = '3';
const { asciiRuns, Table } = await import('../../src/ui/components/table.js');
const { contentWidths, layoutColumns } = await import('../../src/ui/components/table-layout.js');
const { fitCell } = await import('../../src/ui/components/cell-fit.js');
const { padCell } = await import('../../src/ui/format.js');
const { sessionRow, sessionRows } = await import('../../src/ui/views/sessions.js');
const { COLOR_THEME, MONO_THEME } = await import('../../src/ui/theme.js');
const { renderTui, stripAnsi } = await import('./helpers/render-tui.js');
const { T1, T2, session } = await import('./helpers/fixtures.js');

const COLUMNS: readonly Column[] = [
  { id: 'sid', title: 'SID', width: 4, align: 'right' },
  { id: 'target', title: 'TARGET', width: 12, flex: true, middle: true },
  { id: 'state', title: 'STATE', width: 9 },
  { id: 'verdict', title: 'VERDICT', width: 10 },
  { id: 'health', title: 'HEALTH', width: 10, hideBelow: 70 },
];

function row(sid: number, target: string, state: string, verdict: string, health: string): TableRow {
  return {
    key: `k${sid}`,
    cells: [String(sid), target, state, verdict, health],
    tones: [undefined, undefined, state === 'FAILED' ? 'bad' : 'ok', 'ok', 'dim'],
    fields: {},
    sort: {},
  };
}

const ROWS = [
  row(1, 'iqn.2026-01.lab.example:postgres-data-with-a-long-name', 'LOGGED_IN', '● in-use', '✓ ok'),
  row(2, 'iqn.2026-01.lab.example:kafka', 'FAILED', '△ stale', '✗ failed'),
  row(3, 'iqn.2026-01.lab.example:plain', 'LOGGED_IN', 'foreign', 'ok'),
];

/** What one padded line per row looked like: gutter, then the cells, one space apart. */
function expectedLine(r: TableRow, width: number, selected: boolean, marked: boolean): string {
  const { cols, widths } = layoutColumns(COLUMNS, width, contentWidths(COLUMNS, ROWS));
  const cells = cols.map((c, i) =>
    padCell(
      fitCell(r.cells[COLUMNS.indexOf(c)] ?? '', widths[i]!, c.middle ? 'middle' : 'end'),
      widths[i]!,
      c.align ?? 'left',
    ),
  );
  return `${selected ? '›' : ' '}${marked ? '*' : ' '}${cells.join(' ')}`.trimEnd();
}

/** Screen lines as a terminal shows them (trailing blanks are invisible). */
const screenLines = (frame: string) => frame.split('\n').map((l) => l.trimEnd());

async function renderTable(width: number, theme: Theme, cursor = 0, marks: string[] = []) {
  const tui = renderTui(
    <Table
      columns={COLUMNS}
      rows={ROWS}
      cursor={cursor}
      marks={new Set(marks)}
      width={width}
      height={6}
      theme={theme}
    />,
    { columns: width, rows: 10 },
  );
  await tui.waitFor('SID');
  return tui;
}

describe('table rows', () => {
  it('read exactly like one padded line per row, symbols and middle-cut IQNs included', async () => {
    const tui = await renderTable(80, COLOR_THEME, 1, ['k3']);
    const lines = screenLines(tui.lastFrame());
    expect(lines[1]).toBe(expectedLine(ROWS[0]!, 80, false, false));
    expect(lines[2]).toBe(expectedLine(ROWS[1]!, 80, true, false));
    expect(lines[3]).toBe(expectedLine(ROWS[2]!, 80, false, true));
    expect(lines[1]).toContain('…');
    expect(lines[2]?.startsWith('› ')).toBe(true);
    tui.unmount();
  });

  it('shows the selected row in inverse video and colours only the others', async () => {
    const tui = await renderTable(100, COLOR_THEME, 1);
    const raw = tui.stdout.frames.at(-1)!.split('\n');
    // Selected row: every run is inverse, and the cells lose their tone colours.
    expect(raw[2]).toContain('\x1b[7m');
    expect(raw[2]).not.toContain('\x1b[31m');
    expect(raw[1]).not.toContain('\x1b[7m');
    expect(raw[1]).toContain('\x1b[32m');
    expect(stripAnsi(raw[2]!).trimEnd()).toBe(expectedLine(ROWS[1]!, 100, true, false));
    tui.unmount();
  });

  it('writes no colour escapes in the mono theme (--no-color), keeping the inverse selection', async () => {
    const tui = await renderTable(100, MONO_THEME, 0);
    const raw = tui.stdout.frames.at(-1)!;
    const sgr = [...raw.matchAll(/\x1b\[([0-9;]*)m/g)].map((m) => m[1]);
    expect(sgr.filter((c) => /^(3\d|9\d|38;)/.test(c ?? ''))).toEqual([]);
    expect(raw).toContain('\x1b[7m');
    expect(screenLines(tui.lastFrame())[1]).toBe(expectedLine(ROWS[0]!, 100, true, false));
    tui.unmount();
  });

  it('hides narrow-layout columns and cuts a too-wide row at the terminal edge with an ellipsis', async () => {
    // 60 columns: HEALTH hides; 2 + 4 + 8 (flex minimum) + 9 + 10 + 3 gaps = 36 fits.
    let tui = await renderTable(60, COLOR_THEME, 0);
    let lines = screenLines(tui.lastFrame());
    expect(lines[0]).not.toContain('HEALTH');
    expect(lines[2]).toBe(expectedLine(ROWS[1]!, 60, false, false));
    tui.unmount();
    // Floors wider than the table (a 40-cell title): the growing column is squeezed to 8 cells,
    // then the whole line is truncated, as Ink truncates one Text.
    const wide: Column[] = COLUMNS.map((c) =>
      c.id === 'state' ? { ...c, title: 'S'.repeat(39), width: 40 } : c,
    );
    tui = renderTui(
      <Table
        columns={wide}
        rows={ROWS}
        cursor={0}
        marks={new Set()}
        width={60}
        height={6}
        theme={COLOR_THEME}
      />,
      { columns: 60, rows: 10 },
    );
    await tui.waitFor('SID');
    lines = screenLines(tui.lastFrame());
    expect(lines[2]).toHaveLength(60);
    expect(lines[2]?.endsWith('…')).toBe(true);
    expect(lines[2]?.startsWith('     2 iqn…afka FAILED ')).toBe(true);
    tui.unmount();
  });
});

describe('asciiRuns', () => {
  it('groups printable-ASCII text apart from symbols and merges same-colour neighbours', () => {
    const runs = asciiRuns([
      { text: '  ', color: 'cyan' },
      { text: '   1', color: undefined },
      { text: ' ', color: undefined },
      { text: 'iqn.x', color: undefined },
      { text: ' ', color: undefined },
      { text: '● in-use', color: 'green' },
      { text: ' ', color: undefined },
      { text: '✓ ok', color: 'green' },
      { text: '', color: 'red' },
      { text: ' tail', color: undefined },
    ]);
    expect(runs).toEqual([
      [
        { text: '  ', color: 'cyan' },
        { text: '   1 iqn.x ', color: undefined },
      ],
      [{ text: '● in-use', color: 'green' }],
      [{ text: ' ', color: undefined }],
      [{ text: '✓ ok', color: 'green' }],
      [{ text: ' tail', color: undefined }],
    ]);
  });
});

describe('sessionRows', () => {
  it('builds a row once per Session object and again when the session changes', () => {
    const a = session(1, T1, '10.0.0.5:3260');
    const b = session(2, T2, '10.0.0.6:3260');
    const first = sessionRows([a, b]);
    const again = sessionRows([a, b]);
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    const changed = { ...b, state: 'FAILED' };
    const next = sessionRows([a, changed]);
    expect(next[0]).toBe(first[0]);
    expect(next[1]).not.toBe(first[1]);
    expect(next[1]).toEqual(sessionRow(changed));
  });
});
