/**
 * k9s habits on the demo incident node at 80×24 and 160×45: shift + a column's letter sorts by it
 * (again reverses), `=` goes back to the default problems-first order, the tab bar says which order
 * is shown; shift-letters never open a plan (the actions are lower case), and keys that arrive in
 * one read after a view switch apply to the new view.
 *
 * The incident node (src/sim/scenarios/incident.ts) has sessions 1–7: 7 is behind the portal that is
 * down (first in the default order), 1 is postgres-data, 4 the stale old-logs session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

/** The sid of the cursor row (the `›` line of the Sessions table). */
const cursorSid = (f: string) => /^›\s+(\d+) /m.exec(f)?.[1];
/** The sids of the Sessions table, top to bottom. */
const sids = (f: string) => [...f.matchAll(/^[› ][* ]\s+(\d+) (?:…|iqn)/gm)].map((m) => Number(m[1]));

describe.each([
  { columns: 80, rows: 24 },
  { columns: 160, rows: 45 },
])('sort keys and one-read keys at $columns×$rows', (size) => {
  let t: DemoConsole;
  beforeAll(async () => {
    t = await mountDemo({ scenario: 'incident', write: true, ...size });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  const home = async () => {
    const s = t.ui.getState();
    t.ui.setState({ dialog: undefined, mode: 'normal', detail: undefined, flash: undefined, marks: [] });
    t.ui.setState({
      sort: { ...s.sort, sessions: undefined },
      cursor: { ...s.cursor, sessions: { index: 0 } },
    });
    await t.press('1', 'g');
    await t.waitFor((f) => f.includes('▼SEV') && cursorSid(f) === '7');
  };

  it('the default order is shown (▼SEVERITY); S sorts by SID, S again reverses, = goes back', async () => {
    await home();
    expect(sids(t.lastFrame())[0]).toBe(7);
    await t.press('S');
    let f = await t.waitFor('▲SID');
    expect(sids(f)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(t.ui.getState().sort.sessions).toEqual({ column: 'sid', desc: false });
    await t.press('S');
    f = await t.waitFor('▼SID');
    expect(sids(f)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    await t.press('=');
    f = await t.waitFor('▼SEV');
    expect(t.ui.getState().sort.sessions).toBeUndefined();
    expect(sids(f)[0]).toBe(7);
  }, 60_000);

  it('C, R and L (k9s sort habits) open no plan: R and L sort by REASON and LUN/DEV, C says which letters sort', async () => {
    await home();
    await t.press('C');
    const f = await t.waitFor('no column sorts on C here');
    expect(f).toContain('S SID');
    expect(t.ui.getState().dialog).toBeUndefined();
    await t.press('R');
    await t.waitFor('▲REA');
    expect(t.ui.getState().dialog).toBeUndefined();
    expect(t.ui.getState().sort.sessions).toEqual({ column: 'reason', desc: false });
    await t.press('L');
    await t.waitFor('▲LUN');
    expect(t.ui.getState().dialog).toBeUndefined();
    // Nothing ran: no journal entry, every session still there.
    expect(t.backend.store.getState().snapshot!.sessions).toHaveLength(7);
    await t.press('=');
  }, 60_000);

  it('r opens the rescan plan; a y in the same read is not consent (the plan was not on screen)', async () => {
    await home();
    await t.press('S', 'g');
    await t.waitFor((f) => cursorSid(f) === '1');
    t.stdin.write('ry');
    const f = await t.waitFor('typed before the plan was shown was ignored');
    expect(f).toContain('Plan: Rescan session');
    expect(f).toContain('Apply on sim-node-1? [y/N]');
    const d = t.ui.getState().dialog;
    expect(d?.kind).toBe('plan');
    await t.press(KEY.escape);
    await t.waitFor('Rescan session cancelled');
  }, 60_000);

  it('keys in one read after a view switch apply to the new view (1Sgjjd from Targets: session 3)', async () => {
    await home();
    await t.press('2');
    await t.waitFor(() => t.ui.getState().view === 'targets');
    const three = t.backend.store.getState().snapshot!.sessions.find((x) => x.sid === 3)!;
    // S sorts by SID, g goes to its top (the cursor follows its row across a re-sort), jj: sid 3.
    t.stdin.write('1Sgjjd');
    await t.waitFor('Session 3 ');
    const s = t.ui.getState();
    expect(s.view).toBe('sessions');
    expect(s.detail).toBe(three.key);
    expect(s.sort.sessions).toEqual({ column: 'sid', desc: false });
  }, 60_000);
});
