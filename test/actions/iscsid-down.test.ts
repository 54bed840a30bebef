/**
 * iscsid down (the simulator stops it: no process, no pid file, no socket, and its iscsiadm exits
 * 20 for logins, logouts and discoveries): a problem of the node, and a precondition of every step
 * that needs it. Incident scenario: session 4 (iqn…:old-logs @ 10.0.0.10:3260) is stale, its LUN 1
 * is sdd; its cleanup flushes and deletes sdd, then logs out with iscsiadm.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { guardEffect } from '../../src/engine/actions/guard/index.js';
import { RefusedError } from '../../src/engine/errors.js';
import { nodeProblems } from '../../src/engine/snapshot/problems.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv } from './helpers.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const OLD_LOGS = 'iqn.2026-01.lab.example:old-logs|10.0.0.10:3260|default';

describe('iscsid down', () => {
  it('is read by the snapshot and named by the problems rule (summary, worst, a down session reason)', async () => {
    env = await simEnv('incident');
    expect(env.snap().iscsid).toBe('running');
    expect(nodeProblems(env.snap()).summary).not.toContain('iscsid');
    env.host.sim.stopDaemon('iscsid');
    const s = env.snap();
    expect(s.iscsid).toBe('down');
    const p = nodeProblems(s);
    expect(p.summary).toContain('iscsid not running: no session recovers, iscsiadm logins and logouts fail');
    expect(p.iscsid).toMatchObject({ severity: 'degraded' });
    // Session 7 is FAILED on its dead portal: nothing will log it back in.
    const s7 = s.sessions.find((x) => x.sid === 7)!;
    expect(p.sessions.get(s7.key)!.reasons).toContain('iscsid down: nothing logs it back in');
  });

  it('a cleanup is refused before anything runs, naming the logout step that needs iscsid', async () => {
    env = await simEnv('incident');
    env.host.sim.stopDaemon('iscsid');
    const plan = env.plan('cleanup', ['4']);
    const r = plan.refusals.find((x) => x.id === 'iscsid-down');
    expect(r).toMatchObject({
      overridable: false,
      hint: 'start iscsid (systemctl start iscsid), then plan again',
    });
    expect(r!.reason).toMatch(
      /^iscsid is not running, and step \d+ \(iscsiadm -m node .*--logout.*\) needs it/,
    );
    const result = await applyPlan(plan, env.ctx, fakeTime());
    expect(result.error?.kind).toBe('refused');
    // Nothing ran: sdd and the session are still there.
    const s = env.snap();
    expect(s.sessions.find((x) => x.key === OLD_LOGS)?.devices.map((d) => d.name)).toEqual(['sdd']);
    expect(result.steps.every((x) => x.status === 'skipped')).toBe(true);
  });

  it('iscsid stopping between plan and apply: the executor refuses before the first step', async () => {
    env = await simEnv('incident');
    const plan = env.plan('cleanup', ['4']);
    expect(plan.refusals).toEqual([]);
    env.host.sim.stopDaemon('iscsid');
    const result = await applyPlan(plan, env.ctx, fakeTime());
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ kind: 'refused', exitCode: 3 });
    expect(result.error!.message).toContain('iscsid is not running');
    expect(
      env
        .snap()
        .sessions.find((x) => x.key === OLD_LOGS)
        ?.devices.map((d) => d.name),
    ).toEqual(['sdd']);
  });

  it('the guard refuses a logout, login, discovery or rescan while iscsid is down, never a record edit', async () => {
    env = await simEnv('incident');
    env.host.sim.stopDaemon('iscsid');
    const g = {
      s: env.snap(),
      host: env.host,
      kubeletRoot: '/var/lib/kubelet',
      write: true,
      dryRun: false,
      overrides: new Set<string>(),
      named: new Set<string>([OLD_LOGS]),
      created: { sessions: new Set<string>(), records: new Set<string>(), ifaces: new Set<string>() },
    };
    for (const e of [
      { kind: 'logout', session: OLD_LOGS },
      { kind: 'login', session: OLD_LOGS },
      { kind: 'rescan', session: OLD_LOGS },
      { kind: 'discover', portal: '10.0.0.10:3260', iface: 'default' },
    ] as const)
      expect(() => guardEffect(e, g)).toThrow(RefusedError);
    expect(() => guardEffect({ kind: 'logout', session: OLD_LOGS }, g)).toThrow(
      /\[iscsid\]|iscsid is not running/,
    );
    expect(() => guardEffect({ kind: 'record-update', record: OLD_LOGS }, g)).not.toThrow();
  });
});
