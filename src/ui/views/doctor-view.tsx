import { Box } from 'ink';
import { STATUS_SYMBOL } from '../../app/domain.js';
import type { DoctorCheck, DoctorReport, DoctorStatus } from '../../engine/doctor/types.js';
import { Text } from '../components/safe-text.js';
import { COLOR_THEME, type Theme, type Tone, toneColor } from '../theme.js';

const STATUS_TONE: Record<DoctorStatus, Tone> = { pass: 'ok', warn: 'warn', fail: 'bad', skip: 'dim' };

interface DoctorViewProps {
  report: DoctorReport;
  /** Rows available (the view never renders more lines than this). */
  height: number;
  /** Columns available; long evidence and hints are truncated, never wrapped. */
  width: number;
  /** Colours; the no-colour theme keeps the symbols, so nothing is carried by colour alone. */
  theme?: Theme;
  /** First body line shown (the console's scroll position); clamped. */
  offset?: number;
}

type Line = { kind: 'check'; check: DoctorCheck; titleWidth: number } | { kind: 'hint'; check: DoctorCheck };

/** The report as display lines: one per check, plus one hint line under each warn/fail. */
function doctorLines(report: DoctorReport): Line[] {
  const titleWidth = Math.max(0, ...report.checks.map((c) => c.title.length));
  const lines: Line[] = [];
  for (const check of report.checks) {
    lines.push({ kind: 'check', check, titleWidth });
    if (check.hint && (check.status === 'warn' || check.status === 'fail'))
      lines.push({ kind: 'hint', check });
  }
  return lines;
}

/**
 * The Doctor view: a summary line, then each check with ✓ / ! / ✗ / - in its colour, the evidence,
 * and the hint under warnings and failures. Pure: everything comes from props (the console mounts
 * it with the report of `runDoctor`).
 */
export function DoctorView({ report, height, width, theme = COLOR_THEME, offset = 0 }: DoctorViewProps) {
  const s = report.summary;
  const lines = doctorLines(report);
  const body = Math.max(0, height - 1);
  const fits = lines.length <= body;
  const visibleCount = fits ? lines.length : Math.max(0, body - 1);
  const start = Math.min(Math.max(0, offset), Math.max(0, lines.length - visibleCount));
  const visible = lines.slice(start, start + visibleCount);
  const below = lines.length - start - visible.length;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold>Doctor</Text>
        {'  '}
        <Text color={toneColor(theme, 'ok')}>{s.pass} ok</Text>
        {' · '}
        <Text color={toneColor(theme, s.warn ? 'warn' : 'dim')}>
          {s.warn} warning{s.warn === 1 ? '' : 's'}
        </Text>
        {' · '}
        <Text color={toneColor(theme, s.fail ? 'bad' : 'dim')}>{s.fail} failed</Text>
        {' · '}
        <Text color={toneColor(theme, 'dim')}>{s.skip} skipped</Text>
      </Text>
      {visible.map((line) =>
        line.kind === 'check' ? (
          <Text key={`c:${line.check.id}`} wrap="truncate-end">
            <Text color={toneColor(theme, STATUS_TONE[line.check.status])} bold>
              {STATUS_SYMBOL[line.check.status]}
            </Text>{' '}
            {line.check.title.padEnd(line.titleWidth)}
            {'  '}
            <Text color={toneColor(theme, 'dim')}>{line.check.evidence}</Text>
          </Text>
        ) : (
          <Text
            key={`h:${line.check.id}`}
            wrap="truncate-end"
            color={toneColor(theme, STATUS_TONE[line.check.status])}
          >
            {'    hint: '}
            {line.check.hint}
          </Text>
        ),
      )}
      {!fits && below > 0 ? (
        <Text color={toneColor(theme, 'dim')}>{`  … ${below} more line${below === 1 ? '' : 's'}`}</Text>
      ) : null}
    </Box>
  );
}
