import { afterEach, describe, expect, it } from 'vitest';
import { fakeBackend, incidentSnapshot, scaleSnapshot, T2 } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';
import { KEY } from './helpers/render-tui.js';

let t: Mounted | undefined;
afterEach(() => t?.unmount());

const rowOf = (frame: string, sid: number) =>
  frame.split('\n').find((l) => new RegExp(`^.{2}\\s*${sid} (iqn|…)`).test(l));

describe('sessions view', () => {
  it('shows one row per session with verdict and health as symbol and word', async () => {
    t = await mountConsole();
    // At 120 columns the target reads whole (REASON's first 32 cells, then TARGET); HOST and
    // LUN/DEV show from 130 columns.
    const f = await t.waitFor('…:storage.target2 ');
    expect(f).toContain('READ-ONLY');
    expect(f).toContain('node-17');
    expect(f).toContain('iscsid ● up');
    expect(rowOf(f, 2)).toMatch(/10\.0\.0\.6:3260\s+default\s+FAILED\s+△ stale\s+✗ failed/);
    expect(rowOf(f, 1)).toContain('● in-use');
    expect(f).toContain('1 of 3');
  });

  it('filters by text, field=value and ! inversion, and shows the filter in the status bar', async () => {
    t = await mountConsole();
    await t.press('/');
    await t.type('state=FAILED');
    let f = await t.waitFor('1 of 1 (3 total)');
    expect(rowOf(f, 2)).toBeDefined();
    expect(rowOf(f, 1)).toBeUndefined();
    expect(f.split('\n')[0]).toContain('filter: state=FAILED');
    await t.press(KEY.enter);
    await t.press('/');
    await t.press(KEY.ctrlU); // not text: ignored in filter mode
    for (let i = 0; i < 'state=FAILED'.length; i++) await t.press(KEY.backspace);
    await t.type('!target2');
    f = await t.waitFor('1 of 2 (3 total)');
    expect(rowOf(f, 2)).toBeUndefined();
    await t.press(KEY.escape);
    f = await t.waitFor('1 of 3');
    expect(f.split('\n')[0]).not.toContain('filter:');
  });

  it('opens the detail with the LUN→device→map→mount→kubelet→pod chain and what kubelet does on detach', async () => {
    // The fixture's session 2 is FAILED with a transport-offline disk (recovery expired): the red
    // banner takes two lines, so the chain needs a few more rows to show whole.
    t = await mountConsole({ rows: 34 });
    // Problems come first by default: sort by SID to open session 1.
    await t.press('>');
    await t.waitFor('SID▲');
    await t.press(KEY.enter);
    const f = await t.waitFor('Session 1');
    expect(f).toContain('kubelet logs this session out when a volume on it detaches');
    expect(f).toContain('sdb is held by dm-0');
    expect(f).toMatch(/LUN 1\s+2:0:0:1\s+sdb\s+running/);
    expect(f).toContain('→ dm-0 mpatha (2/2 paths ok)');
    // The mount path wraps instead of being cut, so the pod is further down.
    await t.press('G');
    await t.waitFor('→ pod pod-a-uid (name unknown) volume data');
    await t.press(KEY.escape);
    await t.waitFor('1 of 3');
  });

  it('scrolls a long detail within its bounds (PgDn past the end, one ↑ moves back)', async () => {
    t = await mountConsole({ rows: 14 });
    await t.press('>');
    await t.waitFor('SID▲');
    await t.press(KEY.enter);
    let f = await t.waitFor('Session 1');
    expect(f).toContain('more lines');
    await t.press(KEY.pageDown, KEY.pageDown, KEY.pageDown, KEY.pageDown);
    f = await t.waitFor('→ pod pod-a-uid (name unknown) volume data');
    expect(f).not.toContain('more lines');
    await t.press(KEY.up);
    f = await t.waitFor('more lines');
    expect(f.split('\n').length).toBeLessThanOrEqual(14);
  });

  it('keeps the selection on the same session when a refresh reorders rows', async () => {
    const backend = fakeBackend();
    t = await mountConsole({ backend });
    await t.press(KEY.down, KEY.down);
    let f = await t.waitFor('3 of 3');
    const snap = incidentSnapshot();
    backend.store.setState({
      snapshot: { ...snap, sessions: [snap.sessions[2]!, snap.sessions[0]!, snap.sessions[1]!] },
    });
    // Problems first: the failed session 2 stays on top; 3 now comes before 1.
    f = await t.waitFor('2 of 3');
    expect(f.split('\n').find((l) => l.startsWith('›'))).toMatch(/^›\s+3 (iqn|…)/);
    // The selected session disappears: the cursor stays at its position, clamped.
    backend.store.setState({ snapshot: { ...snap, sessions: [snap.sessions[0]!] } });
    f = await t.waitFor('1 of 1');
    expect(f.split('\n').find((l) => l.startsWith('›'))).toMatch(/^›\s+1 (iqn|…)/);
  });

  it('sorts by column with < > and reverses with ~', async () => {
    t = await mountConsole();
    await t.press('>');
    let f = await t.waitFor('SID▲');
    await t.press('~');
    f = await t.waitFor('SID▼');
    const sids = f.split('\n').flatMap((l) => /^.{2}\s*(\d+) (?:iqn|…)/.exec(l)?.[1] ?? []);
    expect(sids).toEqual(['3', '2', '1']);
  });

  it('windows 1,000 sessions: the frame never exceeds the terminal height and G reaches the last row', async () => {
    t = await mountConsole({ backend: fakeBackend(scaleSnapshot(1000)), rows: 30 });
    let f = await t.waitFor('1 of 1000');
    expect(f.split('\n').length).toBeLessThanOrEqual(30);
    // By SID, so the last row is the last session (by default the failed ones come first).
    await t.press('>');
    await t.waitFor('SID▲');
    await t.press('G');
    f = await t.waitFor('1000 of 1000');
    // The last session's row: its target is cut where it differs from the others on screen.
    expect(f).toMatch(/^.{2}\s*1000 …\S*01000 /m);
    expect(f.split('\n').length).toBeLessThanOrEqual(30);
    await t.press(KEY.pageUp);
    await t.waitFor(/\d+ of 1000/);
  });

  it('uses a narrow layout and a "terminal too small" message, following resizes', async () => {
    t = await mountConsole({ columns: 80, rows: 24 });
    let f = await t.waitFor('target2');
    expect(f).not.toContain('IFACE');
    expect(f.split('\n').every((l) => l.length <= 80)).toBe(true);
    await t.resize(50, 10);
    f = await t.waitFor('Terminal too small');
    expect(f).toContain('50x10');
    await t.resize(130, 30);
    f = await t.waitFor('IFACE');
    expect(f).toContain(T2.slice(-7));
  });
});
