/**
 * The Doctor view (8): the doctor engine's node checks, as `iscsi-console doctor` prints them, one
 * row per check; ⏎/d opens a check with its evidence, fix and source. The checks run when the view
 * opens and again on ctrl-r, not on every poll (they run commands): `run`, src/ui/view-run.ts.
 */
import type { Column } from '../components/table-types.js';
import { doctorCheckId, doctorRows } from './doctor-rows.js';
import { DoctorBody, doctorDetail } from './doctor-view.js';
import { defineView } from './view.js';

/**
 * The evidence grows first, to 100 cells (a line longer than that is read in the check's detail);
 * then a check's title, up to its content: whole at 160 columns, cut at 80 where the evidence
 * keeps 45 cells.
 */
const DOCTOR_COLUMNS: readonly Column[] = [
  // The finding is the title: whole first (the longest is under 50), then the evidence takes the rest
  // (⏎ opens a check with its evidence and fix wrapped in full).
  { id: 'check', title: 'CHECK', width: 30, grow: 3, max: 50 },
  { id: 'evidence', title: 'EVIDENCE / FIX', width: 40, grow: 1 },
];

export const doctorView = defineView({
  id: 'doctor',
  columns: DOCTOR_COLUMNS,
  feed: 'doctor',
  run: (backend) =>
    backend.runDoctor().then(
      (report) => ({ report }),
      (e: Error) => ({ error: e.message }),
    ),
  rows: ({ doctor }) => (doctor && 'report' in doctor ? doctorRows(doctor.report) : []),
  noCounter: true,
  scrolls: (detail) => detail !== undefined,
  scrollLines: (_snapshot, detail, width, data) =>
    detail === undefined ? undefined : (doctorDetail(data?.doctor, detail, width)?.length ?? 1),
  open: (row) => ({ view: 'doctor', detail: doctorCheckId(row) }),
  json: (row, { doctor }) => {
    const id = doctorCheckId(row);
    const check = doctor && 'report' in doctor ? doctor.report.checks.find((c) => c.id === id) : undefined;
    return check ? [{ path: `.checks[] | select(.id == "${id}")`, value: check }] : undefined;
  },
  Body: DoctorBody,
});
