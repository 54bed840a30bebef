import { afterEach, describe, expect, it } from 'vitest';
import { type AttachInput, planAttach } from '../../src/engine/actions/attach.js';
import { EMPTY_BLAST } from '../../src/engine/actions/plan-kit.js';
import type { ActionContext, Plan } from '../../src/engine/actions/types.js';
import type { Host } from '../../src/engine/host/host.js';
import { validateWizard, wizardInput, wizardSecrets } from '../../src/ui/wizard/wizard-state.js';
import { fakeBackend, T1 } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';
import { KEY } from './helpers/render-tui.js';

let t: Mounted | undefined;
afterEach(() => t?.unmount());

/** Session CHAP: `downs` fields down to its toggle, on, user `user1`, secret `hunter2` (masked). */
async function sessionChap(m: Mounted, downs: number): Promise<void> {
  for (let i = 0; i < downs; i++) await m.press(KEY.down);
  await m.waitFor('› Session CHAP');
  await m.press(' ');
  await m.press(KEY.down);
  await m.type('user1');
  await m.press(KEY.down);
  await m.type('hunter2');
}

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

describe('attach wizard', () => {
  it('shows inline errors, masks secrets, plans, applies and ends on the new session detail', async () => {
    const backend = fakeBackend();
    let planned: AttachInput | undefined;
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
        blastRadius: structuredClone(EMPTY_BLAST),
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
    await sessionChap(t, 11);
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

describe('attach wizard: discovery and failures', () => {
  const engineCtx: ActionContext = {
    host: { hostname: () => 'node-a' } as unknown as Host,
    kubeletRoot: '/var/lib/kubelet',
    stateDir: '/state',
    write: true,
    takeSnapshot: () => fakeBackend().store.getState().snapshot!,
  };

  async function fillForm(m: Mounted, portal: string) {
    await m.press('a');
    await m.waitFor('Attach: log in to an iSCSI target');
    await m.press(KEY.up);
    await m.type('pv-z');
    await m.press(KEY.down);
    await m.type(portal);
  }

  it('read-only: discover is refused and nothing is asked of the node', async () => {
    const backend = fakeBackend();
    let asked = 0;
    backend.discover = async () => {
      asked++;
      return [];
    };
    t = await mountConsole({ backend, write: false });
    await fillForm(t, '10.0.0.9:3260');
    await t.press(KEY.ctrlD);
    await t.waitFor('switch to WRITE mode');
    expect(asked).toBe(0);
  });

  it('the engine plan lists the records the discovery offered; after a failure the form comes back, secrets included and masked', async () => {
    const backend = fakeBackend();
    const other = 'iqn.2024-01.lab.example:other';
    backend.discover = async (portal) => [
      { portal, tpgt: 1, iqn: T1 },
      { portal, tpgt: 1, iqn: other },
    ];
    let plan: Plan | undefined;
    backend.planAttach = (input, write) => {
      plan = planAttach(input, backend.store.getState().snapshot!, { ...engineCtx, write });
      return plan;
    };
    t = await mountConsole({ backend, write: true });
    await fillForm(t, '10.0.0.9:3260');
    await t.press(KEY.ctrlD);
    await t.waitFor('Targets offered by 10.0.0.9:3260');
    await t.press(KEY.enter);
    await t.waitFor(`picked ${T1}`);
    await sessionChap(t, 13);
    await t.press(KEY.enter);
    let f = await t.waitFor('Plan: Attach');
    expect(plan?.blastRadius.nodeRecords).toContain(
      `${other}|10.0.0.9:3260|default (created by discovery, deleted after login)`,
    );
    expect(f).not.toContain('hunter2');
    await t.press('y');
    await t.waitFor('Running: Attach');
    backend.finishApply({
      ok: false,
      error: { message: 'LUN 0 not found; rolled back: session 9' },
      rollback: { removed: ['session 9'], left: [], kept: false },
    });
    f = await t.waitFor('Attach volume failed');
    expect(f).toContain('rolled back: session 9');
    expect(f).not.toContain('Not verified');
    await t.press(KEY.enter);
    await t.waitFor((x) => !x.includes('Attach volume failed'));
    await t.press('a');
    f = await t.waitFor('values kept from the last attach that did not succeed');
    expect(f).toContain('pv-z');
    expect(f).toContain('10.0.0.9:3260');
    expect(f).toContain(T1);
    expect(f).toContain('•••••••');
    expect(f).not.toContain('hunter2');
    const w = t.ui.getState().dialog;
    expect(w?.kind === 'wizard' && w.fields.sessionSecret).toBe('hunter2');
    // Esc discards the kept values; the next wizard starts empty.
    await t.press(KEY.escape);
    await t.waitFor((x) => !x.includes('Attach: log in to an iSCSI target'));
    await t.press('a');
    f = await t.waitFor('Attach: log in to an iSCSI target');
    expect(f).not.toContain('pv-z');
  });
});
