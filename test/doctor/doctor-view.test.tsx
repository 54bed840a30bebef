import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/engine/doctor/index.js';
import type { DoctorCheck, DoctorReport } from '../../src/engine/doctor/types.js';
import { doctorCheckId, doctorDetailLines, doctorRows } from '../../src/ui/views/doctor-rows.js';

const CHECKS: DoctorCheck[] = [
  {
    id: 'iscsid.running',
    title: 'iscsid running',
    status: 'pass',
    evidence: 'pid 612; socket @ISCSIADM_ABSTRACT_NAMESPACE',
  },
  {
    id: 'iscsi.versions',
    title: 'iscsiadm and iscsid versions equal',
    status: 'fail',
    evidence: 'iscsiadm 2.1.8, iscsid 2.1.4',
    hint: 'use the iscsiadm of the same open-iscsi release as the running iscsid',
  },
  {
    id: 'multipathd.running',
    title: 'multipathd running',
    status: 'warn',
    evidence: 'no multipathd',
    hint: 'systemctl enable --now multipathd',
  },
  {
    id: 'netns.host',
    title: "console in the host's network namespace",
    status: 'skip',
    evidence: 'cannot read /proc/1/ns/net',
  },
];
const REPORT: DoctorReport = { schemaVersion: 1, checks: CHECKS, summary: summarize(CHECKS) };

describe('doctor rows', () => {
  it('one row per check with its symbol and evidence, a fix row under each warning and failure', () => {
    const rows = doctorRows(REPORT);
    expect(rows.map((r) => r.cells)).toEqual([
      ['✓ iscsid running', 'pid 612; socket @ISCSIADM_ABSTRACT_NAMESPACE'],
      ['✗ iscsiadm and iscsid versions equal', 'iscsiadm 2.1.8, iscsid 2.1.4'],
      ['  ↳ fix', 'use the iscsiadm of the same open-iscsi release as the running iscsid'],
      ['! multipathd running', 'no multipathd'],
      ['  ↳ fix', 'systemctl enable --now multipathd'],
      ["- console in the host's network namespace", 'cannot read /proc/1/ns/net'],
    ]);
    // A fix row opens its check, and filters and sorts with it.
    expect(rows.map(doctorCheckId)).toEqual([
      'iscsid.running',
      'iscsi.versions',
      'iscsi.versions',
      'multipathd.running',
      'multipathd.running',
      'netns.host',
    ]);
    expect(rows[2]!.sort).toEqual(rows[1]!.sort);
    expect(rows[2]!.fields.evidence).toBe('iscsiadm 2.1.8, iscsid 2.1.4');
  });

  it("a check's detail holds its evidence, fix and source in full", () => {
    const check: DoctorCheck = {
      id: 'x.long',
      title: 'a long check',
      status: 'warn',
      evidence: `e ${'word '.repeat(60)}end-of-evidence`,
      hint: `h ${'fix '.repeat(60)}end-of-fix`,
      source: 'https://github.com/open-iscsi/open-iscsi/blob/master/etc/iscsid.conf',
    };
    const text = doctorDetailLines(check).map((l) => l.text);
    expect(text[0]).toBe('! a long check: warning');
    expect(text).toContain(`  ${check.evidence}`);
    expect(text).toContain(`  ${check.hint}`);
    expect(text).toContain(`  ${check.source}`);
  });
});
