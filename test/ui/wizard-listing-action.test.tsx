/**
 * The wizard's listing plans are actions like any other (through the real app layer and engine on
 * the `--demo empty` simulator): the consent policy decides whether they run (a dry-run console
 * shows the plan and runs nothing), a run is tracked and journaled, and ctrl-c during one asks
 * "stop after the current step?" — stopped, the LUN listing undoes itself (iface, record, session).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import type { SimHost } from '../../src/sim/index.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { type DemoConsole, mountDemo, DEMO_STATE_DIR as STATE_DIR } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

const P = '127.0.0.1:3260';
const GUARDED = '127.0.0.2:3260';

let t: DemoConsole | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** What a listing must leave as it found it. */
function nodeState(host: SimHost) {
  const s = takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' });
  return {
    sessions: s.sessions.map((x) => x.key),
    records: s.nodeRecords.map((r) => `${r.targetIqn}|${r.portal}|${r.iface}`),
    ifaces: s.ifaces.map((i) => i.name),
  };
}

/** The wizard up to the LUN listing's plan of storage.target1 (no CHAP), picked from discovery. */
async function toListingPlan(m: DemoConsole): Promise<void> {
  await m.press('a');
  await m.waitFor('[1 Portal]');
  await m.type(P);
  await m.press(KEY.enter);
  await m.waitFor('[2 Discovery]');
  await m.press(KEY.enter);
  await m.waitFor((f) => f.includes('[3 Target]') && f.includes('storage.target1'));
  for (let i = 0; i < 20 && !/›.*storage\.target1/.test(m.lastFrame()); i++) await m.press(KEY.down);
  await m.press(KEY.enter);
  await m.waitFor((x) => x.includes('[4 LUN]') && x.includes('temporary login'));
}

async function dryRun(m: DemoConsole): Promise<void> {
  await m.press(':');
  await m.type('dry-run');
  await m.press(KEY.enter);
  await m.waitFor('DRY-RUN');
}

describe('the wizard runs its listing plans as actions', () => {
  it('a dry-run console shows the LUN listing plan and runs nothing', async () => {
    t = await mountDemo({ scenario: 'empty', write: true });
    const before = nodeState(t.host);
    await dryRun(t);
    await toListingPlan(t);
    await t.press('y');
    const f = await t.waitFor('DRY-RUN: the listing would run the plan shown; nothing ran');
    expect(f).toContain('temporary login');
    expect(nodeState(t.host)).toEqual(before);
    expect(t.backend.store.getState().actions).toEqual([]);
    expect(readJournal(t.host, STATE_DIR)).toEqual([]);
  }, 60_000);

  it('a dry-run console shows the CHAP discovery plan and writes no credentials', async () => {
    t = await mountDemo({ scenario: 'empty', write: true });
    const before = nodeState(t.host);
    await dryRun(t);
    await t.press('a');
    await t.waitFor('[1 Portal]');
    await t.type(GUARDED);
    await t.press(KEY.enter);
    await t.waitFor('[2 Discovery]');
    await t.press(' ', KEY.down);
    await t.type('discuser');
    await t.press(KEY.down);
    await t.type('discsecret456');
    await t.press(KEY.enter);
    await t.waitFor('temporary discovery record');
    await t.press('y');
    await t.waitFor('DRY-RUN: the listing would run the plan shown; nothing ran');
    expect(nodeState(t.host)).toEqual(before);
    expect(t.backend.store.getState().actions).toEqual([]);
    expect(readJournal(t.host, STATE_DIR)).toEqual([]);
  }, 60_000);

  it('ctrl-c during the LUN listing asks, stops after the step, and the listing undoes itself', async () => {
    t = await mountDemo({
      scenario: 'empty',
      write: true,
      // The login answers only when the test moves the simulated clock: the run is mid-plan until then.
      prepare: (host) => host.sim.faults.slow('--login', 10_000),
    });
    const m = t;
    const before = nodeState(m.host);
    await toListingPlan(m);
    await m.press('y');
    // Tracked like any action: the store's `actions` has the run, its login step running.
    await m.waitFor('ctrl-c/q asks to stop between steps');
    await waitFor(
      m.backend.store,
      (s) => s.actions.at(-1)?.steps.find((x) => x.stepId === 'login')?.status === 'running',
      10_000,
    );
    expect(m.backend.store.getState().actions.at(-1)!.plan.action).toBe('list-luns');

    await m.press(KEY.ctrlC);
    await m.waitFor('Stop after the current step? [y/N]');
    await m.press('y');
    await m.waitFor('Stopping after the current step');
    // The login waits on the simulated clock: once it does, time moves and it answers.
    await m.host.sim.clock.sleeping();
    m.host.sim.clock.advance(10_000);
    const f = await m.waitFor('listing stopped:', 30_000);
    expect(f).toMatch(/interrupted: stopped after step \d+ \(iscsiadm/);
    // Undone: the temporary session, its record and the listing's iface are gone again.
    expect(nodeState(m.host)).toEqual(before);
    const journal = readJournal(m.host, STATE_DIR);
    expect(journal.map((e) => `${e.action} ${e.phase} ${e.ok ?? ''}`)).toEqual([
      'list-luns begin ',
      'list-luns end false',
    ]);
    const steps = journal[1]!.steps!.map((s) => `${s.id} ${s.status}`);
    expect(steps).toContain('login done');
    expect(steps).toContain('rollback done');
    expect(steps).not.toContain('scan-target done');
    expect(m.backend.store.getState().actions.at(-1)?.finishedAt).toBeDefined();
    // The console is still open, on the wizard: nothing asked it to leave.
    expect(m.ui.getState().dialog?.kind).toBe('wizard');
  }, 60_000);

  it('ctrl-c during the CHAP discovery lets it run to its end, which deletes its credentials record', async () => {
    t = await mountDemo({
      scenario: 'empty',
      write: true,
      prepare: (host) => host.sim.faults.slow('--discover', 10_000),
    });
    const m = t;
    await m.press('a');
    await m.waitFor('[1 Portal]');
    await m.type(GUARDED);
    await m.press(KEY.enter);
    await m.waitFor('[2 Discovery]');
    await m.press(' ', KEY.down);
    await m.type('discuser');
    await m.press(KEY.down);
    await m.type('discsecret456');
    await m.press(KEY.enter);
    await m.waitFor('temporary discovery record');
    await m.press('y');
    await waitFor(
      m.backend.store,
      (s) => s.actions.at(-1)?.steps.find((x) => x.stepId === 'discover')?.status === 'running',
      10_000,
    );
    await m.press(KEY.ctrlC);
    await m.waitFor('Stop after the current step? [y/N]');
    await m.press('y');
    await m.waitFor('Stopping once the discovery has deleted its record');
    await m.host.sim.clock.sleeping();
    m.host.sim.clock.advance(10_000);
    await m.waitFor((f) => f.includes('[3 Target]') && f.includes('guarded-volume'), 30_000);
    const journal = readJournal(m.host, STATE_DIR);
    expect(journal.map((e) => `${e.action} ${e.phase} ${e.ok ?? ''}`)).toEqual([
      'list-targets begin ',
      'list-targets end true',
    ]);
    expect(journal[1]!.steps!.map((x) => `${x.id} ${x.status}`)).toContain('discoverydb-delete done');
  }, 60_000);
});
