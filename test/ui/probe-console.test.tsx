/**
 * The console's probe key on `--demo degraded`: nothing is probed until the admin presses `p`; then
 * the stuck session's portal answers, every read carries the result, the session leaves the outage
 * for `stuck`, and its cleanup (nothing uses it) is planned without the outage override — with the
 * executor's precondition that the portal still answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/watchers/wait-for.js';
import { type DemoConsole, mountDemo } from './helpers/demo.js';

let t: DemoConsole | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('the probe key', () => {
  it('p probes the down portals: the stuck session is told from an outage and its cleanup needs no override', async () => {
    t = await mountDemo({ scenario: 'degraded', write: true });
    const before = t.backend.store.getState().snapshot!;
    const scratch = before.sessions.find((s) => s.targetIqn.endsWith(':scratch'))!;
    // Nothing sent yet: the read knows no probe, so the down session is an outage.
    expect(before.probes ?? []).toEqual([]);
    expect(before.stuck ?? []).toEqual([]);
    expect(before.outages.map((o) => o.portal)).toContain(scratch.portal);
    const refusedBefore = t.backend.plan(
      'cleanup',
      [{ scope: 'session', key: scratch.key, label: `session ${scratch.sid}` }],
      true,
    );
    expect(refusedBefore.refusals.map((r) => r.id)).toContain('outage');

    await t.press('p');
    await t.waitFor((f) => f.includes(`${scratch.portal} answers`));
    const after = await waitFor(t.backend.store, (s) => (s.snapshot?.stuck?.length ?? 0) > 0, 20_000);
    const stuck = after.snapshot!.stuck!.find((p) => p.portal === scratch.portal)!;
    expect(stuck.sessions).toContain(scratch.sid);
    expect(after.snapshot!.outages.map((o) => o.portal)).not.toContain(scratch.portal);

    const plan = t.backend.plan(
      'cleanup',
      [{ scope: 'session', key: scratch.key, label: `session ${scratch.sid}` }],
      true,
    );
    expect(plan.refusals.map((r) => r.id)).not.toContain('outage');
    expect(plan.warnings.join('\n')).toContain('stuck, not an outage, so no override is needed');
    const logout = plan.steps.find((s) => s.effect.kind === 'logout')!;
    expect(logout.preconditions.map((p) => p.id)).toContain('session-not-outage');
  }, 120_000);
});
