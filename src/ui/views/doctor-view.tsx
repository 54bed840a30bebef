/**
 * The Doctor view's body: the summary line, then the checks as a table (a row per check, its fix
 * under each warning and failure); ⏎/d on a row opens the check's detail, wrapped to the width.
 */
import { Box } from 'ink';
import type { DoctorReport } from '../../engine/doctor/types.js';
import { Text } from '../components/safe-text.js';
import { ScrollText } from '../components/scroll-text.js';
import { wrapLines } from '../dialogs/plan-lines.js';
import { type Theme, toneColor } from '../theme.js';
import { doctorDetailLines } from './doctor-rows.js';
import { TableBody } from './table-body.js';
import type { DoctorFeed, ViewBodyProps } from './view.js';

/** `Doctor  22 ok · 3 warnings · 1 failed · 1 skipped`: the counts in their colours. */
function DoctorSummary({ report, theme }: { report: DoctorReport; theme: Theme }) {
  const s = report.summary;
  return (
    <Text wrap="truncate-end">
      <Text bold>Doctor</Text>
      {'  '}
      <Text color={toneColor(theme, 'ok')}>{`${s.pass} ok`}</Text>
      {' · '}
      <Text
        color={toneColor(theme, s.warn ? 'warn' : 'dim')}
      >{`${s.warn} warning${s.warn === 1 ? '' : 's'}`}</Text>
      {' · '}
      <Text color={toneColor(theme, s.fail ? 'bad' : 'dim')}>{`${s.fail} failed`}</Text>
      {' · '}
      <Text color={toneColor(theme, 'dim')}>{`${s.skip} skipped`}</Text>
    </Text>
  );
}

/** The detail's lines at this width, for the body and for the scroll bound alike. */
export function doctorDetail(doctor: DoctorFeed | undefined, id: string, width: number) {
  const check = doctor && 'report' in doctor ? doctor.report.checks.find((c) => c.id === id) : undefined;
  return check ? wrapLines(doctorDetailLines(check), width) : undefined;
}

export function DoctorBody(props: ViewBodyProps) {
  const { doctor, theme, width, height } = props;
  if (!doctor) return <Text color={toneColor(theme, 'dim')}>Running checks…</Text>;
  if ('error' in doctor)
    return <Text color={toneColor(theme, 'bad')}>{`doctor failed: ${doctor.error}`}</Text>;
  if (props.detail !== undefined) {
    const lines = doctorDetail(doctor, props.detail, width) ?? [
      { text: `Check ${props.detail} is not in this run. esc returns to the list.`, tone: 'warn' as const },
    ];
    return <ScrollText lines={lines} height={height} width={width} offset={props.scroll} theme={theme} />;
  }
  return (
    <Box flexDirection="column" width={width} height={height}>
      <DoctorSummary report={doctor.report} theme={theme} />
      <TableBody {...props} height={Math.max(1, height - 1)} viewId="doctor" empty="no checks" />
    </Box>
  );
}
