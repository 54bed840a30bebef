import { afterEach, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../src/engine/doctor/types.js';
import { fakeBackend } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';
import { KEY } from './helpers/render-tui.js';

let t: Mounted | undefined;
afterEach(() => t?.unmount());

describe('other views', () => {
  it('targets: portal→host map, hostname portals and partially logged-in targets are flagged', async () => {
    t = await mountConsole({ columns: 200 });
    await t.press('2');
    const f = await t.waitFor('PROBLEMS');
    expect(f).toMatch(/10\.0\.0\.5:3260\s+2\s+1\s+LOGGED_IN/);
    // Portal rows sit under their target (HOST, SID, STATE, LUNS, PATHS, PROBLEMS); at 200
    // columns the hostname portal fits whole.
    expect(f).toMatch(
      /└\s+storage\.example\.com:3260\s+-\s+-\s+-\s+-\s+-\s+! hostname; sysfs shows an IP; listed, not logged in; partial/,
    );
    expect(f).toMatch(/├\s+10\.0\.0\.7:3260\s+4\s+3 LOGGED_IN 1:sdd\s+-\s+! partial 2\/3/);
    // The PROBLEMS column is the engine's rule for the row's sessions (the expired recovery first:
    // session 2 is FAILED with a transport-offline disk), then the portal flags.
    expect(f).toMatch(
      /10\.0\.0\.6:3260\s+3\s+2\s+FAILED\s+1:sdc\s+-\s+✗ recovery_tmo expired: the kernel fails I\/O; session FAILED; sdc t/,
    );
  });

  it('volumes: mounted or not, metadata source, pods and problems', async () => {
    t = await mountConsole({ columns: 170 });
    await t.press('3');
    const f = await t.waitFor('GLOBAL DIR');
    expect(f).toMatch(/fs\s+1 yes\s+iscsi\.json\s+1,3\s+1 ✓/);
    // The problems rule: an unused dir without a session is orphaned, its metadata note kept.
    expect(f).toMatch(
      /fs\s+0 no\s+dir name\s+-\s+0 ! no session logged in, nothing uses it; orphaned: no sess/,
    );
  });

  it('devices: SCSI devices by H:C:T:L and dm maps with their paths', async () => {
    t = await mountConsole({ columns: 140 });
    await t.press('4');
    const f = await t.waitFor('HOLDERS/PATHS');
    expect(f).toMatch(/sdc\s+3:0:0:1\s+transport-offline/);
    expect(f).toMatch(/dm-0 mpatha\s+36001405aaa\s+✓ 2\/2 paths\s+1\.0G\s+sdb,sdd/);
    expect(f).toContain('(sg only)');
  });

  it('records: node.startup=automatic is flagged; ifaces listed', async () => {
    t = await mountConsole({ columns: 140 });
    await t.press('5');
    const f = await t.waitFor('STARTUP');
    expect(f).toMatch(
      // The node's common IQN prefix is elided; the summary line names it once.
      /node\s+…:storage\.target1\s+10\.0\.0\.5:3260\s+default\s+⚑ automatic\s+no\s+sid 1/,
    );
    expect(f).toMatch(/node\s+.*target2\s+10\.0\.0\.6:3260\s+default\s+manual\s+yes\s+sid 2/);
    expect(f).toMatch(/iface\s+default/);
  });

  it('events: live rows from the store, following the tail', async () => {
    const backend = fakeBackend();
    t = await mountConsole({ backend, rows: 14 });
    await t.press('6');
    await t.waitFor('no events');
    const events = Array.from({ length: 30 }, (_, i) => ({
      id: i + 1,
      at: Date.UTC(2026, 10, 30, 4, 0, i),
      kind: 'session' as const,
      severity: i === 29 ? ('error' as const) : ('info' as const),
      subject: 'session2',
      message: `event number ${i + 1}`,
    }));
    backend.store.setState({ events });
    const f = await t.waitFor('event number 30');
    expect(f).toContain('✗ error');
    expect(f).toContain('30 of 30');
    expect(f).not.toContain('event number 1 ');
    expect(f.split('\n').length).toBeLessThanOrEqual(14);
  });

  it('journal: each action with its exact commands and exit codes', async () => {
    const backend = fakeBackend();
    backend.journal = [
      {
        id: 'j1',
        at: Date.UTC(2026, 10, 30, 4, 1, 0),
        action: 'cleanup',
        subject: 'session 2',
        ok: true,
        commands: [{ argv: ['iscsiadm', '-m', 'session', '-r', '2', '-u'], exitCode: 0 }],
      },
      {
        id: 'j2',
        at: Date.UTC(2026, 10, 30, 4, 2, 0),
        action: 'logout',
        subject: 'session 9',
        ok: false,
        commands: [
          {
            argv: ['iscsiadm', '-m', 'session', '-r', '9', '-u'],
            exitCode: 21,
            detail: 'ISCSI_ERR_NO_OBJS_FOUND',
          },
        ],
        error: 'no session',
      },
    ];
    t = await mountConsole({ backend });
    await t.press('7');
    let f = await t.waitFor('2026-11-30 04:01:00');
    expect(f).toContain('$ iscsiadm -m session -r 2 -u  → exit 0');
    await t.press(KEY.down);
    f = await t.waitFor('→ exit 21 ISCSI_ERR_NO_OBJS_FOUND');
    expect(f).toContain('✗ failed');
    expect(f).toContain('✗ no session');
  });

  it('doctor: mounts the DoctorView with the engine report', async () => {
    const backend = fakeBackend();
    const report: DoctorReport = {
      schemaVersion: 1,
      checks: [
        {
          id: 'iscsid',
          title: 'iscsid is running',
          status: 'fail',
          evidence: 'no iscsid process',
          hint: 'systemctl start iscsid',
        },
      ],
      summary: { pass: 0, warn: 0, fail: 1, skip: 0, ok: false },
    };
    backend.runDoctor = async () => report;
    t = await mountConsole({ backend });
    await t.press('8');
    const f = await t.waitFor('iscsid is running');
    expect(f).toContain('1 failed');
  });
});
