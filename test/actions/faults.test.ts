/**
 * Every fault of the simulator gives a clear error (iscsiadm code name + hint, exit code) and
 * leaves the node consistent (no half-made session, record or kubelet dir).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import type { ApplyResult } from '../../src/engine/actions/types.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv } from './helpers.js';

const T1 = 'iqn.2026-01.lab.example:storage.target1';
const ATTACH = { portal: ['127.0.0.1:3260'], iqn: T1, lun: '1', 'volume-name': 'pv1' };
const GP = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${T1}-lun-1`;

let env: SimEnv;
afterEach(async () => {
  await env?.close();
});

/** Nothing of the failed attach remains: no session, no node record of T1, no kubelet dir. */
function expectClean(e: SimEnv): void {
  const s = e.snap();
  expect(s.sessions.filter((x) => x.targetIqn === T1)).toEqual([]);
  expect(s.nodeRecords.filter((r) => r.targetIqn === T1)).toEqual([]);
  expect(e.host.lstat(GP)).toBeUndefined();
}

/**
 * Applies while moving the manual clock, so hung/slow simulated commands reach their timeouts:
 * time moves (10 s at a time) only while a command waits on the clock, never on a real timer.
 */
async function applyAdvancing(e: SimEnv, id: string, options: Record<string, unknown>): Promise<ApplyResult> {
  const plan = e.plan(id, [], options);
  let done = false;
  const p = applyPlan(plan, e.ctx).finally(() => {
    done = true;
  });
  for (;;) {
    await Promise.race([p, e.host.sim.clock.sleeping()]);
    if (done) return p;
    e.host.sim.advance(10_000);
  }
}

describe('simulator faults', () => {
  it('iscsid down: exit 20 named, hinted, nothing left behind', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.iscsidDown = true;
    const { result } = await env.run('attach', [], ATTACH);
    expect(result.ok).toBe(false);
    expect(result.error?.exitName).toBe('ISCSI_ERR_ISCSID_NOTCONN');
    expect(result.error?.message).toMatch(/exit 20 ISCSI_ERR_ISCSID_NOTCONN/);
    expect(result.error?.hint).toMatch(/iscsid is not running/);
    expect(result.error?.exitCode).toBe(4);
    expectClean(env);
  });

  it('node DB locked (exit 6): retried with backoff, then a clear error', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.dbLocked = true;
    // The backoff (200, 400, 800 ms per command) is slept on an instant clock: no real waiting.
    const time = fakeTime();
    const { result } = await env.run('attach', [], ATTACH, time);
    expect(time.c.sleeps.slice(0, 3)).toEqual([200, 400, 800]);
    expect(result.ok).toBe(false);
    expect(result.error?.exitName).toBe('ISCSI_ERR_IDBM');
    expect(result.error?.message).toMatch(/after 4 attempts/);
    expect(result.error?.hint).toMatch(/locked/);
    env.host.sim.faults.dbLocked = false;
    expectClean(env);
  });

  it('a transient DB lock is retried and the attach succeeds', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.respond(
      '--login',
      {
        exitCode: 6,
        stderr: 'iscsiadm: Could not execute operation on all records: encountered iSCSI database failure\n',
      },
      2,
    );
    const { result } = await env.run('attach', [], ATTACH, fakeTime());
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    expect(result.steps.find((s) => s.stepId.startsWith('login:'))?.detail).toMatch(/after 3 attempts/);
  });

  it('login auth failure (24): CHAP hint, node record deleted like kubelet', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.loginFailures.set(T1, 24);
    const { result } = await env.run('attach', [], ATTACH);
    expect(result.error?.exitName).toBe('ISCSI_ERR_LOGIN_AUTH_FAILED');
    expect(result.error?.hint).toMatch(/CHAP/);
    expect(result.steps.find((s) => s.stepId.startsWith('login:'))?.status).toBe('failed');
    // The login's compensation (kubelet's record delete) passed the executor's guard and ran.
    expect((result.warnings ?? []).filter((w) => w.startsWith('left after the failure'))).toEqual([]);
    expectClean(env);
  });

  it('portal unreachable on login (8): named and hinted', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.loginFailures.set('127.0.0.1:3260', 8);
    const { result } = await env.run('attach', [], ATTACH);
    expect(result.error?.exitName).toBe('ISCSI_ERR_TRANS_TIMEOUT');
    expect(result.error?.hint).toMatch(/portal did not answer/);
    expectClean(env);
  });

  it('portal outage during discovery: discovery record deleted, clear error', async () => {
    env = await simEnv('empty');
    env.host.sim.portalDown('127.0.0.1:3260');
    const { result } = await env.run('attach', [], ATTACH);
    expect(result.ok).toBe(false);
    expect(result.error?.exitName).toMatch(/^ISCSI_ERR_/);
    expect(result.steps.find((s) => s.stepId.startsWith('discover:'))?.status).toBe('failed');
    expectClean(env);
  });

  it('a hanging iscsiadm is killed by its timeout: exit code 5 (timeout), node consistent', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.hang('--login');
    const result = await applyAdvancing(env, 'attach', ATTACH);
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe('timeout');
    expect(result.error?.exitCode).toBe(5);
    expect(result.error?.message).toMatch(/timed out/);
    env.host.sim.faults.clearCommands();
    expectClean(env);
  });

  it('a slow iscsiadm within its timeout just takes longer', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.slow('--discover', 20_000);
    const result = await applyAdvancing(env, 'attach', ATTACH);
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
  });

  it('device delete answering EBUSY: io error with a hint, the device is still there', async () => {
    env = await simEnv('incident');
    env.host.sim.deleteBusy('sdd');
    const { result } = await env.run('delete-device', ['sdd']);
    expect(result.ok).toBe(false);
    expect(result.error?.exitName).toBe('EBUSY');
    expect(result.error?.hint).toMatch(/busy/);
    expect(result.steps.map((s) => s.status)).toEqual(['done', 'failed']);
    expect(
      env
        .snap()
        .sessions.find((x) => x.sid === 4)
        ?.devices.some((d) => d.name === 'sdd'),
    ).toBe(true);
  });

  it('path failure: deleting the failed path of a live map is allowed and leaves the map serving', async () => {
    env = await simEnv('healthy');
    env.host.sim.pathFail('sdd');
    const { result } = await env.run('delete-device', ['sdd']);
    expect(result.error).toBeUndefined();
    const s = env.snap();
    expect(s.multipath[0]?.slaves).toEqual(['sdc']);
    expect(s.multipath[0]?.mountpoints.length).toBeGreaterThan(0);
  });
});
