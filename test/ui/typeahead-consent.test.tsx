/**
 * Typed consent is given to a plan on the screen: `c<sid>⏎` arriving in one read (a paste, keys
 * buffered over a laggy SSH link) opens the cleanup's plan but applies nothing — the keys that came
 * before the plan was drawn are dropped, and the dialog says how many. Through the real app layer
 * and engine on the `--demo incident` simulator (mountDemo).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

let t: DemoConsole;
beforeAll(async () => {
  t = await mountDemo({ scenario: 'incident', write: true, columns: 160, rows: 45 });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('keys typed ahead of a plan (--demo incident)', () => {
  it('c<sid>⏎ in one read opens the plan, applies nothing and says the keys were ignored', async () => {
    await t.press('/');
    await t.type('verdict=stale');
    await t.press(KEY.enter);
    await t.waitFor(/1 of 1 \(\d+ total\)/);
    const stale = t.backend.store.getState().snapshot!.sessions.find((s) => s.verdict === 'stale')!;
    const sid = String(stale.sid);

    // One read from the terminal: the action key, the token and Enter.
    await t.press(`c${sid}\r`);
    const f = await t.waitFor(`Type ${sid} to apply on`);
    const dropped = sid.length + 1;
    expect(f).toContain(`${dropped} keys typed before the plan was shown were ignored`);
    const d = t.ui.getState().dialog;
    expect(d?.kind).toBe('plan');
    expect(d?.kind === 'plan' ? d.typed : undefined).toBe('');
    // Nothing ran: no action tracked, the session is still there.
    expect(t.backend.store.getState().actions).toEqual([]);
    expect(t.backend.store.getState().snapshot!.sessions.some((s) => s.key === stale.key)).toBe(true);

    // Typed once the plan is on the screen, the same token applies it.
    await t.type(sid);
    await t.press(KEY.enter);
    await t.waitFor(/Clean up session succeeded/, 30_000);
    expect(t.backend.store.getState().snapshot!.sessions.some((s) => s.key === stale.key)).toBe(false);
  }, 60_000);
});
