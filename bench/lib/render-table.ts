/**
 * Renders the README's bench table from bench/results.json and the one row definition
 * (bench/lib/table-rows.ts). Pure: bench/run.mjs writes its output between the markers in README.md,
 * and test/bench/readme-table.test.ts checks README.md against it, so the table is never edited by
 * hand. Only figures and dates come from the results; rows, labels, targets and notes come from
 * the definition, so a run regenerates the same table apart from them.
 */
import { type RowDef, TABLE_ROWS, type Target } from './table-rows.js';

export const TABLE_START =
  '<!-- bench-table:start (written by `npm run bench` from bench/results.json; do not edit) -->';
export const TABLE_END = '<!-- bench-table:end -->';

export interface ResultFigure {
  id: string;
  value?: number;
  unit: string;
}

export interface MeasurementResult {
  measurement: string;
  figures: ResultFigure[];
  notMeasured: string[];
  measuredAt?: string;
  loadavgAfter?: number[];
  seconds?: number;
}

export interface AllResults {
  machine: {
    cpu?: string;
    cores?: number;
    node?: string;
    kernel?: string;
    loadavg?: { start?: number[]; end?: number[] };
    date?: string;
  };
  command?: string;
  results: MeasurementResult[];
}

/** Number formatting of the table: integers with separators from 1,000, one decimal from 10, else 3. */
export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US');
  if (abs >= 10) return (Math.round(v * 10) / 10).toString();
  return (Math.round(v * 1000) / 1000).toString();
}

export function targetText(t: Target | undefined): string {
  return t ? `${t.op === '<=' ? '≤' : '<'} ${fmt(t.value)}` : '';
}

export function passes(t: Target, v: number): boolean {
  return t.op === '<=' ? v <= t.value : v < t.value;
}

function mark(row: RowDef, f: ResultFigure | undefined): string {
  if (f?.value === undefined || !Number.isFinite(f.value)) return 'n/a';
  if (!row.target) return 'info';
  return passes(row.target, f.value) ? 'PASS' : 'MISS';
}

/** A table cell: `|` and newlines from a result's text must not break the row. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function valueText(f: ResultFigure | undefined): string {
  if (f?.value === undefined) return 'not measured';
  return `${fmt(f.value)}${f.unit ? ` ${f.unit}` : ''}`;
}

function when(r: MeasurementResult): string {
  const at = r.measuredAt ? `${r.measuredAt.slice(0, 16).replace('T', ' ')} UTC` : 'never';
  const load = r.loadavgAfter?.[0] !== undefined ? `, load ${r.loadavgAfter[0]}` : '';
  return `${r.measurement} ${at}${load}`;
}

/** The block between the README markers (markers excluded), ending with a newline. */
export function renderTable(all: AllResults): string {
  const byId = new Map<string, ResultFigure>();
  for (const r of all.results) for (const f of r.figures) byId.set(f.id, f);
  const m = all.machine;
  const out = [
    `Last full run ${m.date?.slice(0, 16).replace('T', ' ') ?? '?'} UTC (\`${all.command ?? 'npm run bench'}\`) on ${m.cores ?? '?'} × ${m.cpu ?? '?'}, Linux ${m.kernel ?? '?'}, node ${m.node ?? '?'};`,
    `load average ${m.loadavg?.start?.[0] ?? '?'} at its start and ${m.loadavg?.end?.[0] ?? '?'} at its end (a shared machine: wall times are noisy, CPU times and counts less so).`,
    'Rows, labels, targets and notes come from bench/lib/table-rows.ts; values from bench/results.json.',
    '',
    '| Section | Figure | Value | Target | Result |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const row of TABLE_ROWS) {
    const f = byId.get(row.id);
    out.push(
      `| ${row.section} | ${cell(row.label)} | ${cell(valueText(f))} | ${targetText(row.target)} | ${mark(row, f)} |`,
    );
  }
  out.push('', `Each section's run: ${all.results.map(when).join('; ')}.`);
  out.push('', 'How each figure is measured:', '');
  for (const row of TABLE_ROWS) out.push(`- **${row.label}**: ${row.note}`);
  const missing = all.results.flatMap((r) => r.notMeasured.map((n) => `- ${r.measurement}: ${cell(n)}`));
  if (missing.length) out.push('', 'Not measured in these runs:', '', ...missing);
  return `${out.join('\n')}\n`;
}

/** README.md with the block between the markers replaced; throws when the markers are missing. */
export function withTable(readme: string, block: string): string {
  const a = readme.indexOf(TABLE_START);
  const b = readme.indexOf(TABLE_END);
  if (a < 0 || b < a) throw new Error(`README.md has no ${TABLE_START} … ${TABLE_END} block`);
  return `${readme.slice(0, a + TABLE_START.length)}\n${block}${readme.slice(b)}`;
}

/** The block currently between the markers. */
export function tableIn(readme: string): string | undefined {
  const a = readme.indexOf(TABLE_START);
  const b = readme.indexOf(TABLE_END);
  if (a < 0 || b < a) return undefined;
  return readme.slice(a + TABLE_START.length + 1, b);
}
