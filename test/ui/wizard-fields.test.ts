import { describe, expect, it } from 'vitest';
import { validateWizard, wizardInput, wizardSecrets } from '../../src/ui/wizard/wizard-state.js';
import { T1 } from './helpers/fixtures.js';

describe('attach wizard validation', () => {
  it('checks IQN/EUI format, portal syntax with IPv6, LUN range and CHAP pairs', () => {
    const ok = {
      volName: 'pv-a',
      targetPortal: '[fd00::5]:3260',
      portals: '10.0.0.6',
      iqn: T1,
      lun: '255',
      mount: 'true',
    };
    expect(validateWizard(ok)).toEqual({});
    // Format+mount has no default: unanswered is an error, unless the volume is a raw block device.
    expect(validateWizard({ ...ok, mount: '' }).mount).toBe('choose yes or no (space)');
    expect(validateWizard({ ...ok, mount: 'false' })).toEqual({});
    expect(validateWizard({ ...ok, mount: '', block: 'true' })).toEqual({});
    expect(validateWizard({ ...ok, targetPortal: 'fd00::5]:3260' }).targetPortal).toBeDefined();
    expect(validateWizard({ ...ok, portals: '10.0.0.6, bad portal' }).portals).toContain('bad portal');
    expect(validateWizard({ ...ok, iqn: 'iqn.bogus' }).iqn).toBeDefined();
    expect(validateWizard({ ...ok, iqn: 'eui.02004567A425678D' }).iqn).toBeUndefined();
    // One LUN rule for flags, manifests and the wizard: the engine's (SAM flat space above 255).
    expect(validateWizard({ ...ok, lun: '300' }).lun).toBeUndefined();
    expect(validateWizard({ ...ok, lun: '70000' }).lun).toMatch(/0\.\.16383/);
    expect(validateWizard({ ...ok, lun: '' }).lun).toBeDefined();
    expect(validateWizard({ ...ok, lun: 'x' }).lun).toBeDefined();
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
