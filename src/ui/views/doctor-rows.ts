/**
 * The Doctor view's rows and detail: one row per check (its symbol and title, the evidence), with
 * a `fix` row under each warning and failure, and a detail (⏎/d) with the evidence, the fix and the
 * source in full, wrapped. Every word comes from the doctor engine (src/engine/doctor/), the text
 * `iscsi-console doctor` prints.
 */
import { STATUS_SYMBOL } from '../../app/domain.js';
import type { DoctorCheck, DoctorReport, DoctorStatus } from '../../engine/doctor/types.js';
import type { Line } from '../components/scroll-text.js';
import type { TableRow } from '../components/table-types.js';
import type { Tone } from '../theme.js';

const STATUS_TONE: Record<DoctorStatus, Tone> = { pass: 'ok', warn: 'warn', fail: 'bad', skip: 'dim' };

const STATUS_WORD: Record<DoctorStatus, string> = {
  pass: 'ok',
  warn: 'warning',
  fail: 'failed',
  skip: 'skipped (not judged here)',
};

/** Worst first when sorted by status; the engine's order otherwise. */
const STATUS_RANK: Record<DoctorStatus, number> = { fail: 0, warn: 1, skip: 2, pass: 3 };

/** A fix row's key: the check's id after this (the detail it opens is the check's). */
const FIX_KEY = 'fix|';

/** The check a row stands for (a fix row stands for its check). */
export function doctorCheckId(row: TableRow): string {
  return row.key.startsWith(FIX_KEY) ? row.key.slice(FIX_KEY.length) : row.key;
}

/** A check's rows: the check, then its fix when it is a warning or a failure. */
function checkRows(c: DoctorCheck, order: number): TableRow[] {
  const tone = STATUS_TONE[c.status];
  // A fix row sorts with its check (same keys; the sort is stable), so sorting never parts them.
  const sort = { check: c.title, status: STATUS_RANK[c.status] * 1e4 + order, evidence: c.evidence, order };
  const fields = {
    id: c.id,
    check: c.title,
    status: c.status,
    evidence: c.evidence,
    fix: c.hint ?? '',
    source: c.source ?? '',
  };
  const rows: TableRow[] = [
    {
      key: c.id,
      cells: [`${STATUS_SYMBOL[c.status]} ${c.title}`, c.evidence],
      tones: [tone, 'dim'],
      label: c.title,
      fields,
      sort,
    },
  ];
  if (c.hint && (c.status === 'warn' || c.status === 'fail'))
    rows.push({ key: `${FIX_KEY}${c.id}`, cells: ['  ↳ fix', c.hint], tones: [tone, tone], fields, sort });
  return rows;
}

export function doctorRows(report: DoctorReport): TableRow[] {
  return report.checks.flatMap((c, i) => checkRows(c, i));
}

/** The detail of one check: every part in full (the pane wraps them, plan-lines.ts wrapLines). */
export function doctorDetailLines(c: DoctorCheck): Line[] {
  const tone = STATUS_TONE[c.status];
  const lines: Line[] = [
    { text: `${STATUS_SYMBOL[c.status]} ${c.title}: ${STATUS_WORD[c.status]}`, tone, bold: true },
    { text: `  check id ${c.id} (doctor --json: .checks[] | select(.id == "${c.id}"))`, tone: 'dim' },
    { text: '' },
    { text: 'Evidence', bold: true },
    { text: `  ${c.evidence || '(none)'}` },
  ];
  if (c.hint) lines.push({ text: '' }, { text: 'Fix', bold: true }, { text: `  ${c.hint}`, tone });
  if (c.source)
    lines.push({ text: '' }, { text: 'Source', bold: true }, { text: `  ${c.source}`, tone: 'dim' });
  lines.push({ text: '' }, { text: 'esc returns to the checks · ctrl-r runs them again', tone: 'dim' });
  return lines;
}
