/**
 * The console over the real app layer and engine on the `--demo incident` simulator: what the
 * dialogs show is what the engine plans (the CLI's plan for the same input, its plan text line for
 * line), a run is tracked in the node store's `actions` (the one progress stream), the node is
 * re-read before the outcome shows, and the journal view lists the commands the engine ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionContext } from '../../src/engine/actions/context.js';
import { planLines } from '../../src/engine/actions/format.js';
import { findAction } from '../../src/engine/actions/registry.js';
import { VIEWS } from '../../src/ui/views/registry.js';
import { DEMO_STATE_DIR, type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

// One simulated node for the file (each scenario costs seconds); the run that changes it comes last.
let t: DemoConsole;
beforeAll(async () => {
  t = await mountDemo({ scenario: 'incident', write: true, columns: 200, rows: 60 });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Replaces the Sessions view's filter (esc in the filter line clears the one before). */
async function filterTo(m: DemoConsole, text: string): Promise<void> {
  await m.press('1', '/', KEY.escape);
  await m.waitFor((f) => !f.includes('filter: '));
  await m.press('/');
  await m.type(text);
  await m.press(KEY.enter);
}

/** Filters the Sessions view down to the stale session; returns its sid. */
async function onStale(m: DemoConsole): Promise<number> {
  await filterTo(m, 'verdict=stale');
  await m.waitFor(/1 of 1 \(\d+ total\)/);
  const stale = m.backend.store.getState().snapshot!.sessions.filter((s) => s.verdict === 'stale');
  expect(stale).toHaveLength(1);
  return stale[0]!.sid;
}

describe('console over the real engine (--demo incident)', () => {
  it("the Plan dialog shows the CLI's plan for the same session, in the engine's words", async () => {
    const sid = await onStale(t);
    await t.press('c');
    const f = await t.waitFor(`Type ${sid} to apply on`);
    const d = t.ui.getState().dialog;
    expect(d?.kind).toBe('plan');
    const shown = d?.kind === 'plan' ? d.plan : undefined;
    // The CLI's path: `iscsi-console cleanup <sid>` plans from inputFromCli on the same snapshot.
    const def = findAction('cleanup');
    const snap = t.backend.store.getState().snapshot!;
    const ctx = actionContext({
      host: t.host,
      kubeletRoot: '/var/lib/kubelet',
      stateDir: DEMO_STATE_DIR,
      write: true,
    });
    const cli = def.plan(def.inputFromCli([String(sid)], {}, snap), snap, ctx);
    expect(shown?.steps).toEqual(cli.steps);
    expect(shown?.refusals).toEqual(cli.refusals);
    expect(shown?.confirmToken).toBe(String(sid));
    // Every line the dialog has room for is the engine's text (the one planLines).
    const lines = planLines(cli).map((l) => l.text.trimEnd());
    expect(lines.length).toBeGreaterThan(5);
    for (const text of lines.slice(0, 12)) expect(f).toContain(text);
    await t.press(KEY.escape);
    await t.waitFor('Clean up session cancelled');
  }, 60_000);

  it('read-only: the engine refuses, and the footer says how to allow changes', async () => {
    await t.press(':');
    await t.type('readonly');
    await t.press(KEY.enter);
    await t.waitFor('READ-ONLY: changes are disabled');
    await onStale(t);
    await t.press('c');
    const f = await t.waitFor('Plan: Clean up');
    expect(f).toContain('[read-only]');
    expect(f).toContain('type :write first');
    await t.press(KEY.enter);
    await t.waitFor((x) => !x.includes('Plan: Clean up'));
    expect(t.backend.store.getState().actions).toEqual([]);
    await t.press(':');
    await t.type('write');
    await t.press(KEY.enter);
    await t.waitFor(`Type the hostname ${t.host.hostname()}`);
    await t.type(t.host.hostname());
    await t.press(KEY.enter);
    await t.waitFor(`WRITE mode on ${t.host.hostname()}`);
  }, 60_000);

  it('marked rows are planned as one combined plan by the engine', async () => {
    await filterTo(t, 'verdict=in-use');
    await t.waitFor(/1 of \d+ \(\d+ total\)/);
    await t.press(' ', ' ');
    await t.waitFor('2 marked');
    await t.press('r');
    const f = await t.waitFor('Plan: Rescan');
    const d = t.ui.getState().dialog;
    const plan = d?.kind === 'plan' ? d.plan : undefined;
    expect(plan?.parts).toHaveLength(2);
    const rescans = plan!.steps.map((s) => s.argv?.join(' '));
    expect(rescans).toHaveLength(2);
    for (const argv of rescans) expect(f).toContain(`$ ${argv}`);
    await t.press(KEY.escape);
    await t.waitFor('Rescan session ×2 cancelled');
    await t.press(KEY.escape);
    await t.waitFor((x) => !x.includes(' marked'));
  }, 60_000);

  it('every registered view draws over the real node, reached by its number key', async () => {
    for (const v of VIEWS) {
      await t.press(String(v.key));
      // A list view shows its column titles; a view without columns (the doctor) its own title.
      const marker = v.columns[0]?.title ?? 'Doctor';
      const f = await t.waitFor(marker);
      expect(t.ui.getState().view).toBe(v.id);
      expect(f).not.toContain('Reading the node…');
    }
    await t.press('1');
    await t.waitFor('VERDICT');
  }, 60_000);

  it('a run is tracked in the store, the outcome shows the re-read node, and the journal lists its commands', async () => {
    const sid = await onStale(t);
    const before = t.backend.store.getState().snapshot!.sessions.length;
    await t.press('c');
    await t.waitFor(`Type ${sid} to apply on`);
    await t.type(String(sid));
    await t.press(KEY.enter);
    let f = await t.waitFor(/Clean up session (succeeded|failed)/, 30_000);
    expect(f).toContain('succeeded');
    expect(f).toContain(`session ${sid} is logged out`);
    // Re-read before the outcome was shown: the session is already gone from the store.
    const st = t.backend.store.getState();
    expect(st.snapshot!.sessions.some((s) => s.sid === sid)).toBe(false);
    expect(st.snapshot!.sessions).toHaveLength(before - 1);
    // The one progress stream: the run in `actions`, every step done, the result kept.
    const run = st.actions.at(-1)!;
    expect(run.plan.action).toBe('cleanup');
    expect(run.result?.ok).toBe(true);
    expect(run.finishedAt).toBeDefined();
    expect(run.steps.map((s) => s.status)).toEqual(run.plan.steps.map(() => 'done'));
    const actionEvents = st.events.filter((e) => e.kind === 'action').map((e) => e.message);
    expect(actionEvents).toEqual(['Clean up session: started', 'Clean up session: done']);

    await t.press(KEY.enter);
    await t.waitFor('nothing matches the filter');
    await t.press('7');
    f = await t.waitFor(/cleanup[\s\S]*→ exit 0/);
    expect(f).toMatch(/\$ iscsiadm -m node -p \S+ -T \S+ --logout/);
  }, 60_000);
});
