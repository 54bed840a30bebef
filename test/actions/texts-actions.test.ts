/**
 * What plans and runs say, on the simulated incident node (src/sim/scenarios/incident.ts): a session
 * in use only through its own global mount says so (no pods invented); a logout that exits 0 but
 * leaves the session up fails its step and says the logout did not take effect, instead of ✓ and
 * "the node changed since the plan was made"; errors name steps by number and command.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import type { Host } from '../../src/engine/host/host.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv } from './helpers.js';

const IQN = 'iqn.2026-01.lab.example:postgres-data';
const GP = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.10:3260-${IQN}-lun-1`;

let env: SimEnv;
afterEach(async () => {
  await env?.close();
});

/** The pod of postgres-data is gone; kubelet left the global dir mounted. */
async function podGone(e: SimEnv): Promise<void> {
  const pod = e.snap().kubelet.podVolumes.find((p) => p.globalPath === GP)!;
  await e.host.run(['umount', pod.path]);
  e.host.rmdir(pod.path);
}

describe('plan and run texts', () => {
  it('a session in use only through its own global mount says so, naming no pods', async () => {
    env = await simEnv('incident');
    await podGone(env);
    const plan = env.plan('logout', ['1']);
    const inUse = plan.refusals.find((r) => r.id === 'in-use')!;
    expect(inUse.reason).toBe(
      `session 1 (10.0.0.10:3260) is in use only by its own kubelet global mount ${GP}: no pod uses it`,
    );
    expect(inUse.reason).not.toContain('pods');
    expect(inUse.commands).toBeUndefined();
    expect(plan.blastRadius.pods).toEqual([]);
  });

  it('a logout that exits 0 and leaves the session up fails its step, saying so', async () => {
    env = await simEnv('incident');
    // The fault: iscsiadm --logout answers success and changes nothing (iscsid did not act). The
    // simulator's iscsiadm always logs out, so only this call is replaced.
    const real = env.host.run.bind(env.host);
    const noEffect: Host['run'] = async (argv, o) =>
      argv[0] === 'iscsiadm' && argv.includes('--logout')
        ? { argv: [...argv], exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1 }
        : real(argv, o);
    const ctx = {
      ...env.ctx,
      host: new Proxy(env.host, { get: (t, k) => (k === 'run' ? noEffect : Reflect.get(t, k)) }),
    };
    const plan = env.plan('cleanup', ['4']);
    expect(plan.refusals).toEqual([]);
    const r = await applyPlan(plan, ctx, fakeTime());
    expect(r.ok).toBe(false);
    expect(r.error?.message).toBe(
      'the logout did not take effect (the command ended with exit 0): session 4 (iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default)) still exists',
    );
    expect(r.error?.hint).toContain('iscsid');
    expect(r.error?.hint).not.toContain('the node changed since the plan was made');
    const byId = Object.fromEntries(r.steps.map((s) => [s.stepId, s.status]));
    expect(byId['logout:10.0.0.10:3260']).toBe('failed');
    expect(byId['delete-record:10.0.0.10:3260']).toBe('skipped');
    expect(env.snap().sessions.some((s) => s.sid === 4)).toBe(true);
  });

  it('a step refused at run time is named by its number and command, not its id', async () => {
    env = await simEnv('incident');
    const plan = env.plan('cleanup', ['4']);
    // Between planning and applying someone mounts the disk: the flush step's precondition fails.
    await env.host.run(['mount', '/dev/sdd', '/mnt']);
    env.host.sim.mountsChanged();
    const r = await applyPlan(plan, env.ctx, fakeTime());
    expect(r.error?.message).toMatch(/^step 1 \(blockdev --flushbufs \/dev\/sdd\) was not run: /);
    expect(r.error?.message).not.toContain('flushbufs:sdd');
    expect(r.error?.hint).toBe('the node changed since the plan was made; re-plan and review it');
  });
});
