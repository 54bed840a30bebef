import { safeDeep } from '../text/safe-text.js';
import type { DoctorCheck, DoctorReport, DoctorStatus } from './types.js';

/** Symbol per status: the same set the Doctor view uses. */
export const STATUS_SYMBOL: Record<DoctorStatus, string> = { pass: '✓', warn: '!', fail: '✗', skip: '-' };

const ANSI: Record<DoctorStatus, string> = {
  pass: '\u001b[32m',
  warn: '\u001b[33m',
  fail: '\u001b[31m',
  skip: '\u001b[2m',
};
const RESET = '\u001b[0m';
const DIM = '\u001b[2m';

interface FormatOptions {
  /** No ANSI escapes (`--no-color`, NO_COLOR, or output that is not a terminal). */
  noColor: boolean;
}

/** One line per check: symbol, title, evidence, and the hint when there is something to do. */
export function formatDoctorLine(raw: DoctorCheck, width: number, o: FormatOptions): string {
  // Evidence quotes node files and command output: control characters made visible.
  const c = safeDeep(raw);
  const sym = o.noColor ? STATUS_SYMBOL[c.status] : `${ANSI[c.status]}${STATUS_SYMBOL[c.status]}${RESET}`;
  const hint =
    c.hint && c.status !== 'pass' ? `  ${o.noColor ? '' : DIM}hint: ${c.hint}${o.noColor ? '' : RESET}` : '';
  // The rule's source goes with a finding that asks for a change, so the admin can weigh it.
  const source =
    c.source && (c.status === 'warn' || c.status === 'fail')
      ? `  ${o.noColor ? '' : DIM}source: ${c.source}${o.noColor ? '' : RESET}`
      : '';
  return `${sym} ${c.title.padEnd(width)}  ${c.evidence}${hint}${source}`;
}

/** The human report of `iscsi-console doctor`: check lines and a summary line. */
export function formatDoctorReport(report: DoctorReport, o: FormatOptions): string {
  const width = Math.max(...report.checks.map((c) => c.title.length), 0);
  const lines = report.checks.map((c) => formatDoctorLine(c, width, o));
  const s = report.summary;
  lines.push(
    '',
    `doctor: ${s.pass} ok, ${s.warn} warning${s.warn === 1 ? '' : 's'}, ${s.fail} failed, ${s.skip} skipped`,
  );
  return `${lines.join('\n')}\n`;
}
