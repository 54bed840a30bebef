import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/engine/actions/types.js';
import { validateWizard, wizardInput, wizardSecrets } from '../../src/ui/wizard/wizard-state.js';
import { fakeBackend, T1 } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';
import { KEY } from './helpers/render-tui.js';

let t: Mounted | undefined;
afterEach(() => t?.unmount());

describe('attach wizard validation', () => {
  it('checks IQN/EUI format, portal syntax with IPv6, LUN range and CHAP pairs', () => {
    const ok = { volName: 'pv-a', targetPortal: '[fd00::5]:3260', portals: '10.0.0.6', iqn: T1, lun: '255' };
    expect(validateWizard(ok)).toEqual({});
    expect(validateWizard({ ...ok, targetPortal: 'fd00::5]:3260' }).targetPortal).toBeDefined();
    expect(validateWizard({ ...ok, portals: '10.0.0.6, bad portal' }).portals).toContain('bad portal');
    expect(validateWizard({ ...ok, iqn: 'iqn.bogus' }).iqn).toBeDefined();
    expect(validateWizard({ ...ok, iqn: 'eui.02004567A425678D' }).iqn).toBeUndefined();
    // One LUN rule for flags, manifests and the wizard: the engine's (SAM flat space above 255).
    expect(validateWizard({ ...ok, lun: '300' }).lun).toBeUndefined();
    expect(validateWizard({ ...ok, lun: '16384' }).lun).toMatch(/0\.\.16383/);
    expect(validateWizard({ ...ok, lun: '' }).lun).toBeDefined();
    expect(validateWizard({ ...ok, chapAuthSession: 'true', sessionUser: 'u' }).sessionUser).toContain(
      'user and secret',
    );
  });

  it('builds the engine AttachInput and keeps CHAP values apart, keyed by node-DB names', () => {
    const f = {
      volName: 'pv-a',
      targetPortal: '10.0.0.5',
      portals: '10.0.0.6:3260',
      iqn: T1,
      lun: '1',
      chapAuthSession: 'true',
      sessionUser: 'u',
      sessionSecret: 's3cret',
      readOnly: 'true',
    };
    const input = wizardInput(f);
    expect(input).toMatchObject({
      volName: 'pv-a',
      portals: ['10.0.0.5', '10.0.0.6:3260'],
      iqn: T1,
      lun: 1,
      mode: 'filesystem',
      readOnly: true,
      chapSession: true,
      initIface: 'default',
    });
    expect(JSON.stringify(input)).not.toContain('s3cret');
    expect(wizardSecrets(f)).toEqual({
      'node.session.auth.username': 'u',
      'node.session.auth.password': 's3cret',
    });
  });
});

describe('attach wizard', () => {
  it('shows inline errors, masks secrets, plans, applies and ends on the new session detail', async () => {
    const backend = fakeBackend();
    let planned: Record<string, unknown> | undefined;
    backend.planAttach = (input) => {
      planned = input;
      return {
        action: 'attach',
        title: 'Attach',
        subject: `${T1} @ 10.0.0.5:3260`,
        risk: 'low',
        confirm: 'yn',
        refusals: [],
        warnings: [],
        undo: [],
        before: [],
        blastRadius: {
          sessions: [],
          devices: [],
          maps: [],
          mounts: [],
          kubeletVolumes: [],
          pods: [],
          nodeRecords: [],
        },
        steps: [
          {
            id: 'login',
            why: 'log in',
            argv: ['iscsiadm', '-m', 'node', '-p', '10.0.0.5:3260', '-T', T1, '--login'],
            preconditions: [],
          },
        ],
      } satisfies Plan;
    };
    t = await mountConsole({ backend, write: true });
    await t.press('a');
    let f = await t.waitFor('Attach: log in to an iSCSI target');
    await t.press(KEY.up);
    await t.type('pv-a');
    await t.press(KEY.down);
    await t.type('10.0.0.5:99999x');
    f = await t.waitFor('✗ a portal is IPv4');
    for (let i = 0; i < 7; i++) await t.press(KEY.backspace);
    f = await t.waitFor((x) => !x.includes('✗ a portal'));
    await t.press(KEY.down, KEY.down);
    await t.type('iqn.nope');
    await t.waitFor(/Target IQN.*✗/);
    for (let i = 0; i < 8; i++) await t.press(KEY.backspace);
    await t.type(T1);
    // Session CHAP: toggle, user, masked secret.
    for (let i = 0; i < 11; i++) await t.press(KEY.down);
    await t.waitFor('› Session CHAP');
    await t.press(' ');
    await t.press(KEY.down);
    await t.type('user1');
    await t.press(KEY.down);
    await t.type('hunter2');
    f = await t.waitFor('•••••••');
    expect(f).not.toContain('hunter2');
    await t.press(KEY.enter);
    f = await t.waitFor('Plan: Attach');
    expect(planned).toMatchObject({ volName: 'pv-a', portals: ['10.0.0.5'], iqn: T1, chapSession: true });
    expect(f).not.toContain('hunter2');
    await t.press('y');
    await t.waitFor('Running: Attach');
    expect(backend.calls.apply[0]?.secrets).toEqual({
      'node.session.auth.username': 'user1',
      'node.session.auth.password': 'hunter2',
    });
    backend.finishApply();
    await t.waitFor('Attach succeeded');
    await t.press(KEY.enter);
    // The fake node already has a session to T1 @ 10.0.0.5:3260: the console lands on its detail.
    f = await t.waitFor('Session 1 ');
    expect(f).toContain(T1);
  });
});
