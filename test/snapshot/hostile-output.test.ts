/**
 * Node-sourced strings with terminal controls in them (ESC ] OSC … BEL, CSI, one-byte CSI,
 * newlines, a bidi override) in a target name and a kubelet dir name: every text sink shows them
 * made visible, `--json` keeps them exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { formatDoctorLine } from '../../src/engine/doctor/format.js';
import { makePDName } from '../../src/engine/kubelet/paths.js';
import type { Snapshot } from '../../src/engine/model.js';
import { formatEventLine } from '../../src/watchers/format-event.js';
import { captureOutput } from '../helpers/capture-output.js';
import { HOSTILE_NAME, RAW_CONTROL } from '../helpers/hostile-text.js';
import { FixtureRoot, iscsiJson, KROOT, P1 } from './fixture-root.js';

const HOSTILE = HOSTILE_NAME;
const RAW = RAW_CONTROL;

function expectSafe(text: string): void {
  for (const line of text.split('\n')) expect(line, JSON.stringify(line)).not.toMatch(RAW);
  // Shown, not dropped: the admin sees that the name is odd.
  expect(text).toContain('\\x1b]0;PWNED\\x07');
}

const fixtures: FixtureRoot[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

function hostileRoot(): { f: FixtureRoot; dir: string } {
  const f = new FixtureRoot('single-sysfs.json');
  fixtures.push(f);
  f.setAttr('/sys/class/iscsi_session/session1/targetname', `${HOSTILE}\n`);
  const dir = f.fsVolume(P1, HOSTILE, 1, iscsiJson('pv-hostile', [P1], HOSTILE, 1));
  return { f, dir };
}

describe('hostile names on every text sink', () => {
  it('status text shows them escaped; status --json keeps them exact', async () => {
    const { f, dir } = hostileRoot();
    const text = captureOutput();
    expect(await main(['status', '--root', f.root], text)).toBe(0);
    expectSafe(text.out);
    expect(text.out).toContain('\\u202eevil');
    const json = captureOutput();
    expect(await main(['status', '--json', '--root', f.root], json)).toBe(0);
    const snap = JSON.parse(json.out) as Snapshot;
    expect(snap.sessions[0]!.targetIqn).toBe(HOSTILE);
    expect(snap.kubelet.volumes.map((v) => v.path)).toContain(dir);
  });

  it('plan text (session and kubelet-dir cleanup) shows them escaped', async () => {
    const { f, dir } = hostileRoot();
    expect(dir).toBe(makePDName(KROOT, 'default', P1, HOSTILE, 1));
    for (const ref of ['1', dir]) {
      const c = captureOutput();
      const code = await main(['cleanup', ref, '--root', f.root, '--dry-run'], c);
      expect([0, 3]).toContain(code);
      expectSafe(c.out + c.err);
    }
  });

  it('errors and hints quoting them are escaped at the one exit point', async () => {
    const { f } = hostileRoot();
    const c = captureOutput();
    expect(await main(['cleanup', `${KROOT}/${HOSTILE}`, '--root', f.root], c)).toBe(2);
    expect(c.out).toBe('');
    expectSafe(c.err);
    const a = captureOutput();
    const argv = [
      'attach',
      '--portal',
      P1,
      '--iqn',
      HOSTILE,
      '--lun',
      '1',
      '--volume-name',
      'v',
      '--dry-run',
    ];
    expect(await main([...argv, '--root', f.root], a)).toBe(2);
    expectSafe(a.err);
  });

  it('watch lines and doctor lines are escaped', () => {
    const line = formatEventLine({
      id: 1,
      at: 0,
      kind: 'session',
      severity: 'warn',
      subject: HOSTILE,
      message: `session 1 ${HOSTILE} logged in`,
    });
    expectSafe(line);
    const doctor = formatDoctorLine(
      { id: 'initiator', title: 'initiator name', status: 'warn', evidence: HOSTILE, hint: HOSTILE },
      20,
      { noColor: true },
    );
    expectSafe(doctor);
  });
});
