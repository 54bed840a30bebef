import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/engine/doctor/index.js';
import type { DoctorCheck, DoctorReport } from '../../src/engine/doctor/types.js';
import { MONO_THEME } from '../../src/ui/theme.js';
import { DoctorView } from '../../src/ui/views/doctor-view.js';

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
/** The frame's lines without the blank rows the fixed-height box pads with. */
function frameLines(frame: string | undefined): string[] {
  const lines = (frame ?? '').split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines;
}

const REPORT: DoctorReport = { schemaVersion: 1, checks: CHECKS, summary: summarize(CHECKS) };

describe('DoctorView', () => {
  it('renders a summary, one line per check with its symbol and evidence, and hints under warn/fail', () => {
    const { lastFrame, unmount } = render(
      <DoctorView report={REPORT} height={20} width={120} theme={MONO_THEME} />,
    );
    const lines = frameLines(lastFrame());
    unmount();
    expect(lines[0]).toBe('Doctor  1 ok · 1 warning · 1 failed · 1 skipped');
    expect(lines[1]).toMatch(/^✓ iscsid running {2,}pid 612; socket @ISCSIADM_ABSTRACT_NAMESPACE$/);
    expect(lines[2]).toMatch(/^✗ iscsiadm and iscsid versions equal {2,}iscsiadm 2\.1\.8, iscsid 2\.1\.4$/);
    expect(lines[3]).toBe('    hint: use the iscsiadm of the same open-iscsi release as the running iscsid');
    expect(lines[4]).toMatch(/^! multipathd running {2,}no multipathd$/);
    expect(lines[5]).toBe('    hint: systemctl enable --now multipathd');
    expect(lines[6]).toMatch(/^- console in the host's network namespace {2,}cannot read/);
    expect(lines.filter((l) => l.includes('hint:'))).toHaveLength(2);
  });

  it('never renders more lines than its height and says how many are below; scrolls by offset', () => {
    const { lastFrame, unmount, rerender } = render(
      <DoctorView report={REPORT} height={4} width={60} theme={MONO_THEME} />,
    );
    expect((lastFrame() ?? '').split('\n').length).toBeLessThanOrEqual(4);
    let lines = frameLines(lastFrame());
    expect(lines[3]?.trim()).toBe('… 4 more lines');
    rerender(<DoctorView report={REPORT} height={4} width={60} theme={MONO_THEME} offset={99} />);
    expect((lastFrame() ?? '').split('\n').length).toBeLessThanOrEqual(4);
    lines = frameLines(lastFrame());
    expect(lines.at(-1)).toMatch(/^- console in the host/);
    unmount();
  });

  it('truncates long evidence to the width instead of wrapping', () => {
    const long: DoctorCheck[] = [
      { id: 'x', title: 'x', status: 'warn', evidence: 'e'.repeat(300), hint: 'h'.repeat(300) },
    ];
    const { lastFrame, unmount } = render(
      <DoctorView
        report={{ schemaVersion: 1, checks: long, summary: summarize(long) }}
        height={10}
        width={40}
        theme={MONO_THEME}
      />,
    );
    const lines = frameLines(lastFrame());
    unmount();
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
  });
});
