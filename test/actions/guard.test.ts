/**
 * The executor's guard on the simulated node: each hole it closes (the attach rollback, the tidy
 * step, dry-run and read-only for every caller), and the guard proving itself — a planner's own
 * refusal or check removed from its plan, the guard refuses the step and the node keeps it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { combinePlans } from '../../src/engine/actions/combine.js';
import { actionContext } from '../../src/engine/actions/context.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { planListLuns } from '../../src/engine/actions/list-luns.js';
import { unmountStep } from '../../src/engine/actions/plan-kit.js';
import type { Plan } from '../../src/engine/actions/types.js';
import type { Snapshot } from '../../src/engine/model.js';
import { PORTAL_A, PORTAL_B, target, volume } from '../../src/sim/scenarios/lab.js';
import { fakeTime } from '../helpers/fake-time.js';
import { attachArgs, KUBELET_ROOT, type SimEnv, STATE_DIR, simEnv } from './helpers.js';

const LAB = 'iqn.2026-01.lab.example';
const T1 = `${LAB}:storage.target1`;
const T2 = `${LAB}:storage.target2`;
const P = '127.0.0.1:3260';
const POD = '0b0c0d0e-1111-4222-8333-444455556666';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** Runs `during` once, right before the first command matching `when` (the command then runs as usual). */
function before(e: SimEnv, when: (argv: readonly string[]) => boolean, during: () => Promise<unknown>): void {
  const run = e.host.run.bind(e.host);
  let done = false;
  e.host.run = async (argv, options) => {
    if (!done && when(argv)) {
      done = true;
      await during();
    }
    return run(argv, options);
  };
}

const isLogin = (iqn: string) => (argv: readonly string[]) => argv.includes('--login') && argv.includes(iqn);

/** Maps that exist without a path (with queue_if_no_path every I/O to them hangs). */
const pathless = (s: Snapshot) => s.multipath.filter((m) => m.slaves.length === 0).map((m) => m.alias);

describe('the attach rollback logs out only what its own login created', () => {
  it('a session kubelet logs in (with a pod on it) while the login runs is left alone', async () => {
    env = await simEnv('empty');
    const e = env;
    before(e, isLogin(T1), () =>
      e.host.sim.kubeletAttach({ portals: [P], iqn: T1, lun: 1, volName: 'pv-k', podUIDs: [POD] }),
    );
    // LUN 7 does not exist: the attach fails after its login and rolls back.
    const { result } = await e.run('attach', [], attachArgs({ lun: '7' }));
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/LUN 7 not found/);
    const s = e.snap();
    const x = s.sessions.find((y) => y.targetIqn === T1);
    expect(x?.state).toBe('LOGGED_IN');
    expect(x?.pods).toEqual([POD]);
    expect(s.kubelet.podVolumes.some((v) => v.podUid === POD && v.mounted)).toBe(true);
    const end = readJournal(e.host, STATE_DIR).find((j) => j.phase === 'end')!;
    const rb = end.steps!.find((j) => j.id === 'rollback')!;
    expect(rb.commands.some((c) => c.argv?.includes('--logout'))).toBe(false);
  });
});

describe('tidy-discovered keeps the record of a live session', () => {
  it('a session that logged in through a record our discovery created keeps its record', async () => {
    env = await simEnv('empty');
    const e = env;
    // After our discovery wrote T2's record, kubelet logs in to T2 through it and mounts a pod.
    before(e, isLogin(T1), () =>
      e.host.sim.kubeletAttach({ portals: [P], iqn: T2, lun: 1, volName: 'pv-t2', podUIDs: [POD] }),
    );
    const { result } = await e.run('attach', [], attachArgs());
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    const s = e.snap();
    expect(s.sessions.find((x) => x.targetIqn === T2)?.pods).toEqual([POD]);
    expect(s.nodeRecords.some((r) => r.targetIqn === T2 && r.portal === P)).toBe(true);
    expect(result.warnings?.join('\n')).toMatch(
      new RegExp(`kept node record ${T2} @ ${P}: refused by the guard \\[named\\]`),
    );
    // Not even tried (open-iscsi refuses to delete a record in use, and the fallback, node.startup=manual,
    // would change the record of a session that is not this attach's).
    const end = readJournal(e.host, STATE_DIR).find((j) => j.phase === 'end')!;
    const tidy = end.steps!.find((j) => j.id === 'tidy-discovered')!;
    expect(tidy.commands.filter((c) => c.argv?.includes(T2))).toEqual([]);
    expect(tidy.guard?.some((v) => v.startsWith('refused by the guard [named]'))).toBe(true);
    // The records nobody uses are still tidied.
    expect(s.nodeRecords.some((r) => r.targetIqn === `${LAB}:secure-volume`)).toBe(false);
  });
});

describe('dry-run and read-only are the executor’s', () => {
  const listInput = { iqn: T1, portal: P, iface: 'default', chapSession: false, secretKeys: [] };

  it('dry-run: the executor runs no step of the wizard’s LUN listing, whatever the plan says', async () => {
    env = await simEnv('empty');
    // The console's dry-run reaches the executor in its ActionContext (console-backend.ts ctxFor).
    const dry = actionContext({
      host: env.host,
      kubeletRoot: KUBELET_ROOT,
      stateDir: STATE_DIR,
      write: true,
      dryRun: true,
    });
    const plan = planListLuns(listInput, env.snap(), dry);
    expect(plan.refusals).toEqual([]);
    const before = env.snap();
    const result = await applyPlan(plan, dry, fakeTime());
    expect(result.ok).toBe(false);
    expect(result.error?.exitCode).toBe(3);
    expect(result.error?.message).toMatch(/guard \[mode\]: dry-run/);
    const after = env.snap();
    expect(after.ifaces.map((i) => i.name)).toEqual(before.ifaces.map((i) => i.name));
    expect(after.nodeRecords).toEqual([]);
    expect(after.sessions).toEqual([]);
    expect(readJournal(env.host, STATE_DIR)).toEqual([]);
  });

  it('read-only: a plan made while writes were on runs nothing once they are off', async () => {
    env = await simEnv('empty');
    const plan = planListLuns(listInput, env.snap(), env.ctx);
    const ro = actionContext({
      host: env.host,
      kubeletRoot: KUBELET_ROOT,
      stateDir: STATE_DIR,
      write: false,
    });
    const result = await applyPlan(plan, ro, fakeTime());
    expect(result.error?.exitCode).toBe(3);
    expect(env.snap().sessions).toEqual([]);
    expect(env.snap().nodeRecords).toEqual([]);
  });
});

/** A plan with the planner's own refusals and preconditions removed (a planner that forgot them). */
function forgetful(plan: Plan): Plan {
  return {
    ...plan,
    refusals: plan.refusals.filter((r) => r.id === 'read-only'),
    steps: plan.steps.map((st) => ({ ...st, preconditions: [] })),
  };
}

describe('the guard proves itself', () => {
  const GP = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/${PORTAL_A}-${LAB}:postgres-data-lun-1`;

  it('unmount of a global mount pods still use, with the planner’s refusal and check removed: refused', async () => {
    env = await simEnv('incident');
    const plan = forgetful(env.plan('unmount', [GP]));
    expect(plan.steps.map((st) => st.effect.kind)).toEqual(['unmount']);
    const result = await applyPlan(plan, env.ctx, fakeTime());
    expect(result.error?.exitCode).toBe(3);
    expect(result.error?.message).toMatch(/refused by the guard \[in-use\]: unmount .*pods still mount/);
    expect(env.snap().mounts.some((m) => m.mountPoint === GP)).toBe(true);
    const end = readJournal(env.host, STATE_DIR).find((j) => j.phase === 'end')!;
    expect(end.steps![0]!.guard?.[0]).toMatch(/^refused by the guard \[in-use\]/);
  });

  it('unmount of a pod’s own volume mount and of a mount outside kubelet: refused, even forced', async () => {
    env = await simEnv('incident');
    const s = env.snap();
    const pod = s.kubelet.podVolumes.find((v) => v.mounted && v.globalPath === GP)!;
    for (const [path, invariant] of [
      [pod.path, 'unmount-scope'],
      ['/mnt/backup', 'unmount-scope'],
    ] as const) {
      // The unmount planner now plans no step for a mount outside kubelet: the step an older
      // planner (or any other caller) would have made is put back, so the guard is the only line.
      const planned = forgetful(env.plan('unmount', [path]));
      const plan = { ...planned, steps: [unmountStep(path, true)] };
      const result = await applyPlan(plan, env.ctx, { ...fakeTime(), force: true });
      expect(result.error?.message).toContain(`refused by the guard [${invariant}]`);
      expect(env.snap().mounts.some((m) => m.mountPoint === path)).toBe(true);
    }
  });

  it('the override lifts the guard for exactly the object its refusal names', async () => {
    env = await simEnv('incident');
    const plan = env.plan('unmount', [GP]);
    expect(plan.refusals.find((r) => r.id === 'pod-mounts')?.objects).toEqual([GP]);
    const result = await applyPlan(plan, env.ctx, { ...fakeTime(), force: true });
    expect(result.error).toBeUndefined();
    const begin = readJournal(env.host, STATE_DIR).find((j) => j.phase === 'begin')!;
    expect(begin.overrides).toEqual([GP]);
  });

  describe('a multipath target with two paths', () => {
    async function staleMultipath(e: SimEnv) {
      const v = await volume(e.host.sim, target('mp-stale', [PORTAL_A, PORTAL_B], [1, 2]), 'mp-pod');
      await e.host.sim.kubelet.detachLeavingSession(v.globalPath);
      const s = e.snap();
      const sessions = s.sessions.filter((x) => x.targetIqn === `${LAB}:mp-stale`);
      expect(sessions).toHaveLength(2);
      expect(s.multipath.filter((m) => m.slaves.length === 2).length).toBeGreaterThanOrEqual(1);
      return sessions;
    }

    it('a combined logout of both sessions, each planned alone (no flush): the guard refuses the last path', async () => {
      env = await simEnv('empty');
      const sessions = await staleMultipath(env);
      const plans = sessions.map((x) => env!.plan('logout', [String(x.sid)]));
      // A combine that forgets its own ordering refusal (combine.ts refuses this one before consent).
      const combined = { ...combinePlans(plans, env.host.hostname(), env.snap()), refusals: [] };
      const result = await applyPlan(combined, env.ctx, fakeTime());
      expect(result.error?.message).toMatch(/refused by the guard \[map-paths\]/);
      expect(pathless(env.snap())).toEqual([]);
    });

    it('the CLI’s logout <iqn> with its flush steps removed: refused before a map loses its last path', async () => {
      env = await simEnv('empty');
      await staleMultipath(env);
      const plan = env.plan('logout', [`${LAB}:mp-stale`]);
      expect(plan.steps.some((st) => st.effect.kind === 'flush-map')).toBe(true);
      const noFlush = forgetful({
        ...plan,
        steps: plan.steps.filter((st) => st.effect.kind !== 'flush-map'),
      });
      const result = await applyPlan(noFlush, env.ctx, fakeTime());
      expect(result.error?.message).toMatch(/refused by the guard \[map-paths\]/);
      expect(pathless(env.snap())).toEqual([]);
      // With its flush steps, the same plan applies and leaves no pathless map.
      const full = await applyPlan(env.plan('logout', [`${LAB}:mp-stale`]), env.ctx, fakeTime());
      expect(full.error).toBeUndefined();
      expect(pathless(env.snap())).toEqual([]);
    });
  });

  it('a step that declares a secret file at any mode but 0600 is refused before the file is written', async () => {
    env = await simEnv('empty');
    const plan = env.plan('attach', [], attachArgs());
    const write = plan.steps.find((st) => st.effect.kind === 'write-file')!;
    const path = (write.effect as { path: string }).path;
    write.effect = { kind: 'write-file', path, mode: 0o644, secret: true };
    const result = await applyPlan(plan, env.ctx, fakeTime());
    expect(result.error?.message).toMatch(/refused by the guard \[secret-file\]: .* mode 0644, not 0600/);
    expect(env.host.lstat(path)).toBeUndefined();
  });

  it('a dynamic step that resolves an effect it did not declare is refused', async () => {
    env = await simEnv('empty');
    const plan = planListLuns(
      { iqn: T1, portal: P, iface: 'default', chapSession: false, secretKeys: [] },
      env.snap(),
      env.ctx,
    );
    const scan = plan.steps.find((st) => st.id === 'scan-target')!;
    scan.effect = { kind: 'at-apply', effects: ['remove-device'] };
    const result = await applyPlan(plan, env.ctx, fakeTime());
    expect(result.error?.message).toMatch(/refused by the guard \[declared\]: scan /);
    // The listing undid itself: no session, record or iface of it is left.
    const s = env.snap();
    expect(s.sessions).toEqual([]);
    expect(s.nodeRecords).toEqual([]);
  });
});
