import { afterEach, describe, expect, test } from 'vitest';
import { capture, iscsiadm, labSim, labTargets, nodeUpdate, T1, T2, type TestSim } from './helpers.js';

/** iscsiadm emulation against the captured texts (byte-exact where the capture is deterministic). */

let t: TestSim;
afterEach(() => t?.close());

/** Runs the captured command line (minus `timeout N` and shell substitutions) and compares. */
async function expectCapture(name: string, argv?: string[]) {
  const c = capture(name);
  const args =
    argv ??
    c.cmd
      .replace(/^timeout \d+ /, '')
      .split(' ')
      .slice(1);
  const r = await iscsiadm(t.host, ...args);
  expect({ stdout: r.stdout, stderr: r.stderr, exit: r.exit }).toEqual({
    stdout: c.stdout,
    stderr: c.stderr,
    exit: c.exit,
  });
}

async function discoverAndLogin() {
  await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
  await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login');
}

describe('with nothing logged in', () => {
  test('session listings exit 21 with "No active sessions."', async () => {
    t = labSim();
    await expectCapture('session-none.txt');
    await expectCapture('session-none-P3.txt');
  });

  test('node listing with no records exits 21', async () => {
    t = labSim();
    await expectCapture('node-none.txt');
    await expectCapture('err-node-show-no-record.txt');
    await expectCapture('err-login-no-record.txt');
  });

  test('iface list and the default iface record', async () => {
    t = labSim();
    await expectCapture('iface.txt');
    await expectCapture('iface-default-show.txt');
  });

  test('SendTargets returns only the asked portal and creates node records', async () => {
    t = labSim(labTargets(['127.0.0.1:3260', '127.0.0.2:3260']));
    await expectCapture('discovery-sendtargets-1portal.txt');
    await expectCapture('node-list-1portal.txt');
    await expectCapture('node-list-1portal-P1.txt');
    await expectCapture('discoverydb-discover-kubelet-style.txt');
  });

  test('discoverydb record show', async () => {
    t = labSim();
    await iscsiadm(t.host, '-m', 'discoverydb', '-t', 'sendtargets', '-p', '127.0.0.1:3260', '-o', 'new');
    await expectCapture('discoverydb-show.txt');
    const list = await iscsiadm(t.host, '-m', 'discovery');
    expect(list.stdout).toBe('127.0.0.1:3260 via sendtargets\n');
  });

  test('node -o new prints the record it added (tpgt -1)', async () => {
    t = labSim();
    await expectCapture('err-node-new-wrong-iqn.txt');
    await expectCapture('err-node-new-closed-port.txt');
  });

  test('login failures: unknown target 19, closed port 8, CHAP 24, logout without session 21', async () => {
    t = labSim([
      ...labTargets().slice(0, 1),
      { ...labTargets()[1]!, chap: { username: 'labuser', password: 'labsecret' } },
    ]);
    await iscsiadm(
      t.host,
      '-m',
      'node',
      '-o',
      'new',
      '-T',
      'iqn.2024-01.lab.example:nonexistent',
      '-p',
      '127.0.0.1:3260',
    );
    await iscsiadm(t.host, '-m', 'node', '-o', 'new', '-T', T1, '-p', '127.0.0.1:3261');
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    await expectCapture('err-login-wrong-iqn.txt');
    await expectCapture('err-login-closed-port.txt');
    await expectCapture('err-login-chap-required.txt');
    await nodeUpdate(t.host, T2, '127.0.0.1:3260', 'node.session.auth.authmethod', 'CHAP');
    await nodeUpdate(t.host, T2, '127.0.0.1:3260', 'node.session.auth.username', 'labuser');
    await nodeUpdate(t.host, T2, '127.0.0.1:3260', 'node.session.auth.password', 'wrong');
    await expectCapture('err-login-chap-wrong-password.txt');
    await nodeUpdate(t.host, T2, '127.0.0.1:3260', 'node.session.auth.password', 'labsecret');
    await expectCapture('login-chap-ok.txt');
    await expectCapture('err-logout-not-logged-in.txt');
  });

  test('closed port discovery: exit 11 after reopen_max', async () => {
    t = labSim();
    await expectCapture('err-discovery-closed-port.txt');
  });

  test('CHAP record show masks the password; -S shows it', async () => {
    t = labSim([{ ...labTargets()[1]!, chap: { username: 'labuser', password: 'labsecret' } }]);
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    for (const [k, v] of [
      ['node.startup', 'manual'],
      ['node.session.auth.authmethod', 'CHAP'],
      ['node.session.auth.username', 'labuser'],
      ['node.session.auth.password', 'labsecret'],
    ]) {
      await iscsiadm(
        t.host,
        '-m',
        'node',
        '-T',
        T2,
        '-p',
        '127.0.0.1:3260',
        '-o',
        'update',
        '-n',
        k!,
        '-v',
        v!,
      );
    }
    await expectCapture('node-show-chap.txt');
    const shown = await iscsiadm(t.host, '-m', 'node', '-T', T2, '-p', '127.0.0.1:3260', '-o', 'show', '-S');
    expect(shown.stdout).toContain('node.session.auth.password = labsecret\n');
    // The node DB file holds the secret (root-only), like open-iscsi.
    const file = t.host.readText(`/etc/iscsi/nodes/${T2}/127.0.0.1,3260,1/default`);
    expect(file).toContain('node.session.auth.password = labsecret');
  });
});

describe('after a login', () => {
  test('login and session listings at -P 0..3 and -r SID are byte-exact', async () => {
    t = labSim();
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    await nodeUpdate(t.host, T1, '127.0.0.1:3260', 'node.startup', 'manual');
    await expectCapture('login-single.txt');
    await expectCapture('single-session.txt');
    await expectCapture('single-session-P1.txt');
    await expectCapture('single-session-P2.txt');
    await expectCapture('single-session-P3.txt');
    await expectCapture('single-session-r-P3.txt', ['-m', 'session', '-r', '1', '-P', '3']);
    await expectCapture(
      'single-node-show-after-login.txt'.replace('single-node-show-after-login', 'node-show'),
    );
    await expectCapture('rescan-session.txt');
    await expectCapture('err-rescan-no-session.txt');
    await expectCapture('err-session-bad-sid.txt');
    await expectCapture('node-update-startup.txt');
  });

  test('deleting a LUN through sysfs shows in -P 3 (after-delete-session-P3.txt)', async () => {
    t = labSim();
    await discoverAndLogin();
    t.host.writeText('/sys/block/sdb/device/delete', '1');
    await expectCapture('after-delete-session-P3.txt');
  });

  test('two sessions, logout, and "No active sessions" again', async () => {
    t = labSim();
    await discoverAndLogin();
    await iscsiadm(t.host, '-m', 'node', '-T', T2, '-p', '127.0.0.1:3260', '--login');
    await expectCapture('two-sessions.txt');
    await iscsiadm(t.host, '-m', 'node', '-T', T2, '-p', '127.0.0.1:3260', '--logout');
    await expectCapture('logout-single.txt');
    await expectCapture('session-none.txt');
  });

  test('login of an already logged-in record: exit 15, nothing changes', async () => {
    t = labSim();
    await discoverAndLogin();
    const r = await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login');
    expect(r.exit).toBe(15);
    expect(r.stderr).toBe(
      'iscsiadm: default: 1 session requested, but 1 already present.\niscsiadm: Could not log into all portals\n',
    );
    expect(t.sim.kernel.sessions.size).toBe(1);
  });

  test('node -o delete refuses a logged-in record (exit 15) and works after logout', async () => {
    t = labSim();
    await discoverAndLogin();
    const r = await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '-o', 'delete');
    expect(r.exit).toBe(15);
    expect(t.host.stat(`/etc/iscsi/nodes/${T1}/127.0.0.1,3260,1/default`)).toBe('file');
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--logout');
    expect(
      (await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '-o', 'delete')).exit,
    ).toBe(0);
    expect(t.host.stat(`/etc/iscsi/nodes/${T1}`)).toBeUndefined();
  });
});

describe('multipath logins', () => {
  test('one --login for two portals, P3 lists both sessions under one Target', async () => {
    const both = ['127.0.0.1:3260', '127.0.0.2:3260'];
    t = labSim(labTargets(both).map((x) => ({ ...x, portals: both })));
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.2:3260');
    await expectCapture('node-list-2portals.txt');
    const login = await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
    expect(login.exit).toBe(0);
    expect(login.stdout.split('\n').filter((l) => l.endsWith('successful.'))).toHaveLength(2);
    const p3 = await iscsiadm(t.host, '-m', 'session', '-P', '3');
    expect(p3.stdout.match(/^Target: /gm)).toHaveLength(1);
    expect(p3.stdout.match(/\tCurrent Portal: /g)).toHaveLength(2);
    const all = await iscsiadm(t.host, '--mode', 'node', '--logoutall=all');
    expect(all.exit).toBe(0);
    expect(all.stdout.match(/^Logout of \[sid: \d+, target: .*\] successful\.$/gm)).toHaveLength(2);
  });
});

test('version', async () => {
  t = labSim();
  expect((await iscsiadm(t.host, '--version')).stdout).toBe('iscsiadm version 2.1.8\n');
  expect((await t.host.run(['iscsid', '--version'])).stdout).toBe('iscsid version 2.1.8\n');
});
