/**
 * The Doctor view (8): the doctor engine's node checks, as `iscsi-console doctor` prints them. It
 * runs when the view opens and again on ctrl-r, not on every poll (the checks run commands).
 */
import { useEffect, useState } from 'react';
import type { DoctorReport } from '../../engine/doctor/types.js';
import { Text } from '../components/safe-text.js';
import { toneColor } from '../theme.js';
import { DoctorView } from './doctor-view.js';
import { defineView, type ViewBodyProps } from './view.js';

function DoctorBody(props: ViewBodyProps) {
  const { backend, width, height, theme } = props;
  const [report, setReport] = useState<DoctorReport | { error: string } | undefined>();
  const token = props.refreshToken;
  // Runs when the view opens and again on ctrl-r (not on every poll: doctor runs commands).
  // biome-ignore lint/correctness/useExhaustiveDependencies: token is the re-run trigger
  useEffect(() => {
    let live = true;
    backend.runDoctor().then(
      (r) => live && setReport(r),
      (e: Error) => live && setReport({ error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [backend, token]);
  if (!report) return <Text color={toneColor(theme, 'dim')}>Running checks…</Text>;
  if ('error' in report)
    return <Text color={toneColor(theme, 'bad')}>{`doctor failed: ${report.error}`}</Text>;
  return <DoctorView report={report} width={width} height={height} theme={theme} offset={props.scroll} />;
}

export const doctorView = defineView({
  id: 'doctor',
  columns: [],
  rows: () => [],
  noCounter: true,
  scrolls: () => true,
  Body: DoctorBody,
});
