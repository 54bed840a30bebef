/**
 * Issue 13 item 1 in the console, through the real engine on the simulator's `outage` scenario:
 * a session on the dead portal whose pod is gone (kubelet's logout never ran) is refused for cleanup
 * as a likely portal outage. Typing the plain token (the sid) applies nothing; the override step
 * names the refusal and takes its own token, and only that applies the plan (forced, journaled).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/actions/journal.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { createLiveBackend, type LiveBackend } from '../../src/ui/live-backend.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { renderConsole } from './helpers/live-console.js';
import { KEY, type Tui } from './helpers/render-tui.js';

const STATE_DIR = '/var/log/iscsi-console';
const IQN = 'iqn.2026-01.lab.example:postgres-data';
const dir = mkdtempSync(join(tmpdir(), 'ic-consent-outage-'));
let host: SimHost;
let close: () => Promise<void>;
let backend: LiveBackend;
let t: Tui;

beforeAll(async () => {
  ({ host, close } = await openSimHost({ scenario: 'outage', clock: 'manual', dir }));
  const sim = host.sim;
  const gp = [...sim.kubelet.volumes.keys()].find((k) => k.includes(IQN))!;
  // The pod went away and kubelet's DetachDisk never logged out: a leftover on the dead portal.
  await sim.kubelet.detachLeavingSession(gp);
  backend = createLiveBackend({
    host,
    kubeletRoot: '/var/lib/kubelet',
    stateDir: STATE_DIR,
    refreshMs: 60_000,
    exec: 'direct',
  });
  backend.start();
  await waitFor(backend.store, (s) => s.snapshot !== undefined && !s.snapshot.partial, 20_000);
  t = renderConsole(backend, host.hostname(), { columns: 160, rows: 45 }, true);
  await t.waitFor('postgres-data');
}, 60_000);

afterAll(async () => {
  t?.unmount();
  await backend?.stop();
  await close?.();
  rmSync(dir, { recursive: true, force: true });
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
    await t.press('C');
    let f = await t.waitFor('Plan: Clean up');
    expect(f).toMatch(/\[outage, can be overridden\] portal 10\.0\.0\.10:3260 down: 4 sessions FAILED/);
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
    expect(f).toMatch(/✗ \[outage, can be overridden\] portal 10\.0\.0\.10:3260 down: 4 sessions/);
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
