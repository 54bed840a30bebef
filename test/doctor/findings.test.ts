/** Doctor lines say the finding: a goal-phrased title is replaced by what was found, per outcome. */
import { describe, expect, it } from 'vitest';
import { asFinding } from '../../src/engine/doctor/findings.js';
import type { DoctorCheck } from '../../src/engine/doctor/types.js';

const check = (id: string, title: string, status: DoctorCheck['status']): DoctorCheck => ({
  id,
  title,
  status,
  evidence: 'e',
});

describe('doctor findings', () => {
  it('node records that log in at boot: the warning says they do; the pass says none do', () => {
    const goal = 'no node records log in automatically at boot';
    expect(asFinding(check('node-records.startup', goal, 'warn')).title).toBe(
      'node records log in automatically at boot',
    );
    expect(asFinding(check('node-records.startup', goal, 'pass')).title).toBe(goal);
  });

  it('a missing daemon or module reads as missing; a pass keeps the title', () => {
    expect(asFinding(check('iscsid.running', 'iscsid running', 'fail')).title).toBe('iscsid not running');
    expect(asFinding(check('iscsid.running', 'iscsid running', 'pass')).title).toBe('iscsid running');
    expect(asFinding(check('module.iscsi_tcp', 'iscsi_tcp module present', 'fail')).title).toBe(
      'iscsi_tcp module missing',
    );
  });

  it('a title that reads as a problem on a pass is phrased as the clean finding', () => {
    expect(
      asFinding(check('multipath.claims', 'multipath maps over devices they must not hold', 'pass')).title,
    ).toBe('no multipath map over a device it must not hold');
  });

  it('a setting title reads right either way and is kept', () => {
    expect(asFinding(check('iscsid-conf.startup', 'iscsid.conf node.startup', 'warn')).title).toBe(
      'iscsid.conf node.startup',
    );
  });
});
