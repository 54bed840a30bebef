/**
 * The wizard's and the plan dialog's traps, keys in and frames out on the demo nodes at 80×24 and
 * 160×45 (MONO_THEME, as NO_COLOR draws it): the focused field shows a cursor you can see without
 * colours and each field its default; ↑ on the first field stays there; Format+mount is asked,
 * naming the filesystem the listing saw; a discovery error is read whole; a plan takes the whole
 * screen under the status bar and `G`/End scroll to its end instead of typing into the answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lunKeyOf, type WizardState } from '../../src/ui/wizard/wizard-model.js';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

const END = '\x1b[F';
let t: DemoConsole | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const wizard = (c: DemoConsole) => c.ui.getState().dialog as WizardState;
/** The frame's dialog text with the borders taken off and its lines joined (what a reader reads). */
const inside = (f: string) =>
  f
    .split('\n')
    .map((l) => l.replace(/^│ ?/, '').replace(/\s*│$/, '').trim())
    .join(' ');

describe.each([
  { columns: 80, rows: 24 },
  { columns: 160, rows: 45 },
])('wizard and plan dialog at $columns×$rows', (size) => {
  it('shows a cursor and the defaults; ↑ on the first field does not wrap to the last', async () => {
    t = await mountDemo({ scenario: 'empty', write: true, ...size });
    await t.press('a');
    let f = await t.waitFor('[1 Portal]');
    // The cursor is a block after the (empty) value of the focused field.
    expect(f).toMatch(/› Target portal +█/);
    // iface and fsType say what empty stands for (the engine's defaults: `default`, ext4).
    expect(f).toMatch(/ iSCSI iface +\(empty: default\)/);
    await t.press(KEY.up);
    f = await t.waitFor((x) => x.includes('› Target portal'));
    expect(wizard(t).focus).toBe(0);
    expect(f).not.toContain('› Secret file');
    await t.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.down);
    f = await t.waitFor('› Secret file');
    expect(wizard(t).focus).toBe(5);
    // tab still goes round, as in any form.
    await t.press(KEY.tab);
    await t.waitFor('› Target portal');
  }, 60_000);

  it('Format+mount has no default: ⏎ on the Volume step asks, naming the filesystem on the LUN', async () => {
    t = await mountDemo({ scenario: 'empty', write: true, ...size });
    await t.press('a');
    await t.waitFor('[1 Portal]');
    const w = wizard(t);
    const fields = {
      ...w.fields,
      targetPortal: '127.0.0.1:3260',
      iqn: 'iqn.2026-01.lab.example:storage.target1',
      lun: '1',
      volName: 'pv-asked',
    };
    // As the LUN listing leaves it: LUN 1, a disk udev found an xfs filesystem on.
    t.ui.setState({
      dialog: {
        ...w,
        step: 'volume',
        focus: 0,
        fields,
        luns: { for: lunKeyOf(fields), list: [{ lun: 1, type: 0, fsType: 'xfs' }] },
      },
    });
    let f = await t.waitFor('[5 Volume]');
    expect(f).toMatch(/Format\+mount +\[\?\] choose: space/);
    await t.press(KEY.enter);
    f = await t.waitFor('Format+mount?');
    expect(inside(f)).toContain(
      'LUN 1 already holds a filesystem (xfs): yes mounts it as it is (never formats it)',
    );
    expect(f).toMatch(/› Format\+mount +\[\?\] choose/);
    expect(t.ui.getState().dialog?.kind).toBe('wizard');
    await t.press(' ');
    f = await t.waitFor(/› Format\+mount +\[x\] yes/);
    await t.press(KEY.enter);
    f = await t.waitFor('Plan: Attach');
  }, 60_000);

  it('a discovery error is read whole, wrapped in the wizard', async () => {
    t = await mountDemo({ scenario: 'empty', write: true, ...size });
    await t.press('a');
    await t.waitFor('[1 Portal]');
    await t.type('10.0.0.99:3260');
    await t.press(KEY.enter);
    await t.waitFor('[2 Discovery]');
    await t.press(KEY.enter);
    const f = await t.waitFor(
      (x) => inside(x).includes('discovery failed:') && inside(x).includes('SendTargets'),
    );
    const status = wizard(t).status ?? '';
    expect(status).toMatch(/^discovery failed: .*10\.0\.0\.99:3260/);
    // Every word of it is on screen (wrapped between words, nothing cut).
    const text = inside(f).replace(/\s+/g, ' ');
    for (const word of status.split(/\s+/)) expect(text).toContain(word);
  }, 60_000);

  it('a plan takes the screen under the status bar; G and End scroll to its end, g back, nothing typed', async () => {
    t = await mountDemo({ scenario: 'incident', write: true, ...size });
    await t.press('/');
    await t.type('verdict=stale');
    await t.press(KEY.enter, 'c');
    let f = await t.waitFor('Type 4 to apply on');
    const lines = f.split('\n');
    const top = lines.findIndex((l) => l.startsWith('╭'));
    const bottom = lines.findIndex((l) => l.startsWith('╰'));
    // Status bar above, the prompt line below: the frame has every other line of the terminal.
    expect(top).toBe(1);
    expect(bottom - top + 1).toBe(size.rows - 2);
    await t.press('G');
    await t.waitFor(() => t!.ui.getState().detailScroll > 0 || size.rows > 30);
    const d = t.ui.getState().dialog;
    expect(d?.kind === 'plan' ? d.typed : '?').toBe('');
    await t.press('g');
    await t.waitFor(() => t!.ui.getState().detailScroll === 0);
    await t.press(END);
    f = await t.waitFor(() => t!.ui.getState().detailScroll > 0 || size.rows > 30);
    expect(t.ui.getState().dialog?.kind === 'plan').toBe(true);
    // The answer still takes the sid.
    await t.press('4');
    const after = t.ui.getState().dialog;
    expect(after?.kind === 'plan' ? after.typed : '').toBe('4');
    await t.press(KEY.escape);
    await t.waitFor('Clean up session cancelled');
  }, 60_000);
});
