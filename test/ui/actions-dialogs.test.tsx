import { afterEach, describe, expect, it } from 'vitest';
import { fakeBackend } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';

// Rows are walked by sid (↓ to session 2): sorted by SID, since problems come first by default.
import { KEY } from './helpers/render-tui.js';

let t: Mounted | undefined;
afterEach(() => t?.unmount());

describe('plan, confirmation, progress and outcome', () => {
  it('read-only: a destructive key shows the plan only and says how to enable writes', async () => {
    t = await mountConsole({ sessionsBy: 'sid' });
    await t.press(KEY.down, 'c');
    const f = await t.waitFor('Plan: Clean up');
    expect(f).toContain('$ iscsiadm -m session -r 2 -u');
    expect(f).toContain('the console is read-only');
    expect(f).toContain('READ-ONLY: plan only');
    expect(f).toMatch(/sessions \(1\): session 2/);
    await t.press(KEY.enter);
    await t.waitFor('1 sessions');
    expect(t.backend.calls.apply).toHaveLength(0);
  });

  it('write: cleanup needs the sid typed, shows live steps, the outcome, and the session is gone', async () => {
    t = await mountConsole({ sessionsBy: 'sid', write: true });
    await t.press(KEY.down, 'c');
    let f = await t.waitFor('Type 2 to apply on node-17');
    // The engine's one plan rendering (the CLI's risk line): the tone colours it, no symbol.
    expect(f).toContain('risk high · confirm typed');
    await t.type('3');
    await t.press(KEY.enter);
    f = await t.waitFor('does not match: type 2 exactly');
    expect(t.backend.calls.apply).toHaveLength(0);
    await t.type('2');
    await t.press(KEY.enter);
    f = await t.waitFor('Running: Clean up');
    expect(f).toContain('·  1. $ iscsiadm -m session -r 2 -u');
    t.backend.progress?.({ stepId: 'logout-2', status: 'running' });
    f = await t.waitFor('▸  1. $ iscsiadm -m session -r 2 -u');
    t.backend.progress?.({ stepId: 'logout-2', status: 'done', detail: 'exit 0', durationMs: 12 });
    f = await t.waitFor('✓  1. $ iscsiadm -m session -r 2 -u (12 ms)');
    t.backend.finishApply();
    f = await t.waitFor('Clean up succeeded');
    expect(f).toContain('session is gone from sysfs');
    await t.press(KEY.enter);
    f = await t.waitFor(/\d of 2\b/);
    expect(f).not.toContain('storage.target2');
  });

  it('the Progress dialog reads the run from the store, and the console asks no re-read of its own', async () => {
    t = await mountConsole({ sessionsBy: 'sid', write: true });
    await t.press('r');
    await t.waitFor('[y/N]');
    await t.press('y');
    await t.waitFor('Running: Rescan');
    const run = t.backend.store.getState().actions.at(-1)!;
    expect(run.plan).toBe(t.backend.calls.apply[0]?.plan);
    t.backend.progress?.({ stepId: run.plan.steps[0]!.id, status: 'done', detail: 'exit 0' });
    await t.waitFor('✓  1. $ iscsiadm -m session -r 1 -R');
    t.backend.finishApply();
    await t.waitFor('Rescan succeeded');
    expect(t.backend.calls.refresh).toBe(0);
  });

  it('shows the error and its hint when an action fails', async () => {
    t = await mountConsole({ sessionsBy: 'sid', write: true });
    await t.press(KEY.down, 'c');
    await t.waitFor('Type 2');
    await t.type('2');
    await t.press(KEY.enter);
    await t.waitFor('Running');
    t.backend.finishApply({
      ok: false,
      error: { message: 'logout failed', hint: 'check the portal', exitName: 'ISCSI_ERR_TRANS_TIMEOUT' },
    });
    const f = await t.waitFor('Clean up failed');
    expect(f).toContain('error: logout failed (ISCSI_ERR_TRANS_TIMEOUT)');
    expect(f).toContain('hint: check the portal');
  });

  it('y/N defaults to No: Enter cancels, y applies', async () => {
    t = await mountConsole({ sessionsBy: 'sid', write: true });
    await t.press('r');
    await t.waitFor('Apply on node-17? [y/N]');
    await t.press(KEY.enter);
    await t.waitFor('Rescan cancelled');
    expect(t.backend.calls.apply).toHaveLength(0);
    await t.press('r');
    await t.waitFor('[y/N]');
    await t.press('y');
    await t.waitFor('Running: Rescan');
    expect(t.backend.calls.apply).toHaveLength(1);
  });

  it('marks several rows and plans them as one', async () => {
    t = await mountConsole({ sessionsBy: 'sid', write: true });
    await t.press(' ', ' ');
    await t.waitFor('2 marked');
    await t.press('r');
    const f = await t.waitFor('Plan: Rescan');
    expect(t.backend.calls.plan.at(-1)?.selections.map((s) => s.label)).toEqual(['session 1', 'session 2']);
    expect(f).toContain('$ iscsiadm -m session -r 1 -R');
    expect(f).toContain('$ iscsiadm -m session -r 2 -R');
  });

  it('ctrl-c while an action runs asks first and then stops between steps', async () => {
    t = await mountConsole({ sessionsBy: 'sid', write: true });
    await t.press('r');
    await t.waitFor('[y/N]');
    await t.press('y');
    await t.waitFor('Running');
    await t.press(KEY.ctrlC);
    await t.waitFor('Stop after the current step? [y/N]');
    await t.press('n');
    await t.waitFor('ctrl-c asks to stop');
    await t.press(KEY.ctrlC);
    await t.waitFor('Stop after the current step?');
    await t.press('y');
    await t.waitFor('Stopping after the current step');
    t.backend.finishApply({ ok: false, error: { message: 'interrupted' } });
    await t.waitFor('Rescan failed');
  });
});

describe('help, palette, write mode', () => {
  it('? lists navigation keys and the registry actions, marking destructive ones in read-only', async () => {
    t = await mountConsole({ sessionsBy: 'sid' });
    await t.press('?');
    let f = await t.waitFor(' Help ');
    expect(f).toMatch(/c\s+Clean up \[destructive: needs --write or :write\]/);
    expect(f).toMatch(/r\s+Rescan on session/);
    await t.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.down);
    f = await t.waitFor('/            Filter');
    await t.press(KEY.escape);
    await t.waitFor('1 of 3');
  });

  it(': completes view names with tab and switches views; number keys too', async () => {
    t = await mountConsole({ sessionsBy: 'sid' });
    await t.press(':');
    await t.type('dev');
    await t.waitFor(/:dev.*devices/);
    await t.press(KEY.tab, KEY.enter);
    let f = await t.waitFor('H:C:T:L');
    expect(f).toContain('dm-0 mpatha');
    await t.press('1');
    f = await t.waitFor('VERDICT');
    await t.press(':');
    await t.type('sessions verdict=stale');
    await t.press(KEY.enter);
    f = await t.waitFor('1 of 1 (3 total)');
    await t.press(':');
    await t.type('bogus');
    await t.press(KEY.enter);
    await t.waitFor('unknown command :bogus');
  });

  it(':write asks for the hostname, then the status bar says WRITE', async () => {
    t = await mountConsole({ sessionsBy: 'sid' });
    await t.press(':');
    await t.type('write');
    await t.press(KEY.enter);
    await t.waitFor('Type the hostname node-17');
    await t.type('node-1');
    await t.press(KEY.enter);
    await t.waitFor('type node-17 exactly');
    await t.type('node-17');
    await t.press(KEY.enter);
    const f = await t.waitFor('WRITE mode on node-17');
    expect(f.split('\n')[0]).toContain(' WRITE ');
    expect(f.split('\n')[0]).not.toContain('READ-ONLY');
  });

  it('dry-run shows DRY-RUN and never applies', async () => {
    t = await mountConsole({ sessionsBy: 'sid', write: true, dryRun: true, backend: fakeBackend() });
    let f = await t.waitFor('DRY-RUN');
    await t.press('r');
    f = await t.waitFor('DRY-RUN: plan only');
    await t.press('y');
    expect(t.backend.calls.apply).toHaveLength(0);
    expect(f).toContain('Plan: Rescan');
  });
});
