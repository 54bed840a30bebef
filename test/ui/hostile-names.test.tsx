/**
 * Node-sourced strings with terminal controls in them reach no console frame raw: sessions table,
 * session detail, kubelet volumes, the plan dialog and the journal view show them made visible.
 * The raw frames are checked (the helpers' lastFrame() strips escapes, which would hide an injection).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HOSTILE_NAME, RAW_CONTROL } from '../helpers/hostile-text.js';
import { fakeBackend, incidentSnapshot } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';

// Rows are walked by sid (↓ to session 2): sorted by SID, since problems come first by default.
import { KEY } from './helpers/render-tui.js';

const HOSTILE = HOSTILE_NAME;
// Ink's own colour/style codes are the only escapes a frame may carry.
const INK_SGR = /\x1b\[[0-9;]*m/g;
const RAW = RAW_CONTROL;

let t: Mounted | undefined;
afterEach(() => t?.unmount());

function rawFrame(m: Mounted): string {
  return m.stdout.frames[m.stdout.frames.length - 1] ?? '';
}

function expectSafeFrame(m: Mounted): void {
  const raw = rawFrame(m);
  for (const bad of ['\x1b]0;PWNED', '\x1b[5mBLINK', '\x9b', '\u202E', '\u2066', '\rFORGED', '\nLINE'])
    expect(raw).not.toContain(bad);
  for (const line of raw.replace(INK_SGR, '').split('\n'))
    expect(line, JSON.stringify(line)).not.toMatch(RAW);
}

function hostileBackend() {
  const snap = incidentSnapshot();
  const s1 = snap.sessions[0]!;
  const oldIqn = s1.targetIqn;
  s1.targetIqn = HOSTILE;
  s1.reasons = [`kubelet dir names ${HOSTILE}`];
  snap.node.initiatorName = `iqn.1993-08.org.debian:01:\x1b[2Jnode`;
  const v = snap.kubelet.volumes[0]!;
  v.path = v.path.replace(oldIqn, HOSTILE);
  v.iqn = HOSTILE;
  v.problems = [`odd name ${HOSTILE}`];
  const backend = fakeBackend(snap);
  backend.journal = [
    {
      id: 'j1',
      at: Date.UTC(2026, 10, 30, 4, 1, 0),
      action: 'cleanup',
      subject: `session 1 ${HOSTILE}`,
      ok: false,
      commands: [{ argv: ['iscsiadm', '-m', 'node', '-T', HOSTILE, '-u'], exitCode: 21, detail: HOSTILE }],
      error: `logout failed for ${HOSTILE}`,
    },
  ];
  return backend;
}

describe('hostile names in the console', () => {
  it('sessions table, status bar and session detail show them escaped', async () => {
    t = await mountConsole({ sessionsBy: 'sid', backend: hostileBackend(), columns: 220, rows: 40 });
    await t.waitFor('LOGGED_IN');
    expectSafeFrame(t);
    await t.press(KEY.enter);
    const detail = await t.waitFor('\\x1b]0;PWNED\\x07');
    expect(detail).toContain('\\u202eevil');
    expectSafeFrame(t);
  });

  it('kubelet volumes and the journal view show them escaped', async () => {
    t = await mountConsole({
      sessionsBy: 'sid',
      backend: hostileBackend(),
      columns: 220,
      rows: 40,
      view: 'volumes',
    });
    await t.waitFor('\\x1b');
    expectSafeFrame(t);
    t.unmount();
    t = await mountConsole({
      sessionsBy: 'sid',
      backend: hostileBackend(),
      columns: 220,
      rows: 40,
      view: 'journal',
    });
    await t.waitFor('logout failed for');
    expectSafeFrame(t);
  });

  it('the plan dialog shows them escaped', async () => {
    t = await mountConsole({
      sessionsBy: 'sid',
      backend: hostileBackend(),
      columns: 220,
      rows: 40,
      write: true,
    });
    await t.waitFor('LOGGED_IN');
    await t.press('c');
    await t.waitFor('Clean up');
    expect(t.lastFrame()).toContain('\\x1b]0;PWNED');
    expectSafeFrame(t);
  });
});
