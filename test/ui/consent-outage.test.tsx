/**
 * Outages in the console (README.md#safety, docs/status-schema.md#outages), through the real engine on the simulator's `outage` scenario:
 * a session on the dead portal whose pod is gone (kubelet's logout never ran) is refused for cleanup
 * as a likely portal outage. Typing the plain token (the sid) applies nothing; the override step
 * names the refusal and takes its own token, and only that applies the plan (forced, journaled).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveBackend } from '../../src/app/console-backend.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import type { SimHost } from '../../src/sim/index.js';
import { type DemoConsole, mountDemo, DEMO_STATE_DIR as STATE_DIR } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

const IQN = 'iqn.2026-01.lab.example:postgres-data';
let host: SimHost;
let backend: LiveBackend;
let t: DemoConsole;

beforeAll(async () => {
  t = await mountDemo({
    scenario: 'outage',
    write: true,
    columns: 160,
    rows: 45,
    async prepare(h) {
      const sim = h.sim;
      const gp = [...sim.kubelet.volumes.keys()].find((k) => k.includes(IQN))!;
      // The pod went away and kubelet's DetachDisk never logged out: a leftover on the dead portal.
      await sim.kubelet.detachLeavingSession(gp);
    },
  });
  ({ host, backend } = t);
  // The first read is in: the banner names the dead portal (the TARGET column may cut the names).
  await t.waitFor('OUTAGE');
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const sessionsOf = () => host.sim.kernel.findSessions((s) => s.iqn === IQN);

describe('console: overriding the outage guard is its own step with its own token', () => {
  it('the sid applies nothing; the override step names the refusal and applies with override <hostname>', async () => {
    const session = backend.store.getState().snapshot!.sessions.find((s) => s.targetIqn === IQN)!;
    const sid = String(session.sid);
    expect(session.state).toBe('FAILED');
    await t.press('/');
    await t.type('postgres');
    await t.press(KEY.enter);
    await t.waitFor((f) => !f.includes('redis-data'));
    await t.press('c');
    let f = await t.waitFor('Plan: Clean up');
    expect(f).toMatch(/\[outage, can be overridden\] portal 10\.0\.0\.10:3260 down: 5 sessions FAILED/);
    expect(f).toContain(`confirm typed (type "${sid}")`);
    expect(f).toContain('o overrides');
    expect(f).not.toContain(`Type ${sid} to apply`);

    // The plain token, typed the way every other cleanup takes it: nothing applies.
    await t.type(sid);
    await t.press(KEY.enter);
    f = await t.waitFor('nothing typed here applies it');
    expect(sessionsOf()).toHaveLength(1);
    expect(readJournal(host, STATE_DIR)).toEqual([]);

    // The override step: the refusal it lifts, and a token that is not the sid.
    await t.press('o');
    f = await t.waitFor('OVERRIDE 1 refusal');
    expect(f).toMatch(/✗ \[outage, can be overridden\] portal 10\.0\.0\.10:3260 down: 5 sessions/);
    expect(f).toContain('Type override sim-node-1 to override this refusal and apply');
    await t.type(sid);
    await t.press(KEY.enter);
    f = await t.waitFor('does not match: type override sim-node-1 exactly');
    expect(sessionsOf()).toHaveLength(1);
    expect(readJournal(host, STATE_DIR)).toEqual([]);

    await t.type('override sim-node-1');
    await t.press(KEY.enter);
    f = await t.waitFor(/Clean up session (succeeded|failed)/, 30_000);
    expect(f).toContain('succeeded');
    expect(sessionsOf()).toHaveLength(0);
    const begin = readJournal(host, STATE_DIR).find((e) => e.phase === 'begin');
    expect(begin).toMatchObject({ action: 'cleanup', forced: true });
  }, 60_000);
});
