/**
 * unmount takes kubelet's own volume mounts only: a volume's global (or CSI staging) mount, and a
 * pod's own mount of a volume only with the override; /proc, /var/lib/docker, a backup mount are
 * refused whatever the admin types. Through the CLI's main() and applyPlan on the simulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Output } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv } from './helpers.js';

function capture(): { out: Output; stderr: () => string } {
  let se = '';
  return {
    out: {
      stdout: () => {},
      stderr: (t) => {
        se += t;
      },
      isTTY: false,
    },
    stderr: () => se,
  };
}

const GP =
  '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.10:3260-iqn.2026-01.lab.example:postgres-data-lun-1';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const mounted = (e: SimEnv, path: string) => e.snap().mounts.some((m) => m.mountPoint === path);
const refusals = (p: { refusals: { id: string; overridable: boolean }[] }) =>
  p.refusals.map((r) => [r.id, r.overridable]);

describe('unmount: kubelet volume mounts only', () => {
  it("a pod's own volume mount is refused without the override, naming the pod; with it, unmounted", async () => {
    env = await simEnv('incident');
    const pod = env.snap().kubelet.podVolumes.find((p) => p.globalPath === GP)!;
    expect(pod.mounted).toBe(true);
    const plan = env.plan('unmount', [pod.path]);
    expect(refusals(plan)).toEqual([['pod-volume', true]]);
    expect(plan.refusals[0]!.reason).toContain('db/postgres-0');
    const refused = await applyPlan(plan, env.ctx, fakeTime());
    expect(refused.error?.kind).toBe('refused');
    expect(mounted(env, pod.path)).toBe(true);
    const forced = await applyPlan(plan, env.ctx, { ...fakeTime(), force: true });
    expect(forced.error).toBeUndefined();
    expect(mounted(env, pod.path)).toBe(false);
  });

  it('the CLI refuses a pod volume mount with exit 3 and the pod named', async () => {
    env = await simEnv('incident');
    const pod = env.snap().kubelet.podVolumes.find((p) => p.globalPath === GP)!;
    const c = capture();
    expect(await main(['unmount', pod.path, '--demo', 'incident', '--write', '--yes'], c.out)).toBe(3);
    expect(c.stderr()).toMatch(/pod db\/postgres-0's own mount/);
    expect(c.stderr()).toMatch(/add --force to override pod-volume/);
  });

  it('/proc is refused, not overridable: --force --yes still exits 3', async () => {
    const c = capture();
    expect(await main(['unmount', '/proc', '--demo', 'incident', '--write', '--yes', '--force'], c.out)).toBe(
      3,
    );
    expect(c.stderr()).toMatch(/\/proc \(proc from proc\) is not a kubelet volume mount/);
    expect(c.stderr()).not.toMatch(/add --force/);
  });

  it('/var/lib/docker, /sys and a backup mount are refused, not overridable, and stay mounted', async () => {
    env = await simEnv('incident');
    env.host.sim.tree.dir('/srv/docker');
    env.host.sim.tree.dir('/var/lib/docker');
    expect((await env.host.run(['mount', '--bind', '/srv/docker', '/var/lib/docker'])).exitCode).toBe(0);
    for (const path of ['/var/lib/docker', '/sys', '/mnt/backup']) {
      const plan = env.plan('unmount', [path]);
      expect(refusals(plan)).toEqual([['not-kubelet-mount', false]]);
      const r = await applyPlan(plan, env.ctx, { ...fakeTime(), force: true });
      expect(r.error?.kind).toBe('refused');
      expect(mounted(env, path)).toBe(true);
    }
  });

  it('the global mount of a volume no pod uses still unmounts', async () => {
    env = await simEnv('incident');
    const pod = env.snap().kubelet.podVolumes.find((p) => p.globalPath === GP)!;
    await env.host.run(['umount', pod.path]);
    env.host.rmdir(pod.path);
    const u = await env.run('unmount', [GP]);
    expect(u.plan.refusals).toEqual([]);
    expect(u.result.error).toBeUndefined();
    expect(u.result.verified).toBe(true);
    expect(mounted(env, GP)).toBe(false);
  });

  it("CSI: a publish path is a pod's mount (override), the staging path a global one (refused while published)", async () => {
    env = await simEnv('csi');
    const v = env.snap().csi!.volumes.find((x) => x.stagingMounted && x.publish.some((p) => p.mounted))!;
    const pub = v.publish.find((p) => p.mounted)!;
    expect(refusals(env.plan('unmount', [pub.path]))).toEqual([['pod-volume', true]]);
    expect(refusals(env.plan('unmount', [v.stagingPath!]))).toEqual([['pod-mounts', true]]);
  });
});
