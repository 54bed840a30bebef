/**
 * Every operation applied end to end on the simulated node (incident scenario) and verified from
 * the next snapshot; every refusal rule exercised.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import type { Plan } from '../../src/engine/actions/types.js';
import { type SimEnv, simEnv } from './helpers.js';

const IQN = (n: string) => `iqn.2026-01.lab.example:${n}`;
const GP = (portal: string, name: string) =>
  `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/${portal}-${IQN(name)}-lun-1`;
const ids = (p: Plan) => p.refusals.map((r) => r.id).sort();

let env: SimEnv;
afterEach(async () => {
  await env?.close();
});

describe('operations on the incident node', () => {
  it('cleanup of the stale session: delete devices → logout → delete record, verified', async () => {
    env = await simEnv('incident');
    const { plan, result } = await env.run('cleanup', ['4']);
    expect(plan.refusals).toEqual([]);
    expect(plan.steps.map((s) => s.id)).toEqual([
      'flushbufs:sdd',
      'delete:sdd',
      'logout:10.0.0.10:3260',
      'delete-record:10.0.0.10:3260',
    ]);
    expect(plan.steps[2]!.argv).toEqual([
      'iscsiadm',
      '-m',
      'node',
      '-p',
      '10.0.0.10:3260',
      '-T',
      IQN('old-logs'),
      '--logout',
      '-I',
      'default',
    ]);
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    const s = env.snap();
    expect(s.sessions.some((x) => x.targetIqn === IQN('old-logs'))).toBe(false);
    expect(s.nodeRecords.some((r) => r.targetIqn === IQN('old-logs'))).toBe(false);
    expect(s.sessions.find((x) => x.sid === 1)?.state).toBe('LOGGED_IN'); // others untouched
    const [begin, end] = readJournal(env.host, '/var/log/iscsi-console');
    expect(begin).toMatchObject({ phase: 'begin', action: 'cleanup', host: 'sim-node-1', hostKind: 'sim' });
    expect(begin!.who.uid).toBe(process.getuid?.());
    expect(begin!.plan?.steps).toHaveLength(4);
    expect(begin!.before).toContain(`${IQN('old-logs')}|10.0.0.10:3260|default`);
    expect(end).toMatchObject({ phase: 'end', ok: true, id: begin!.id, after: [] });
    const logout = end!.steps!.find((x) => x.id.startsWith('logout:'))!;
    expect(logout.commands[0]).toMatchObject({
      argv: plan.steps[2]!.argv,
      exitCode: 0,
      exitName: 'ISCSI_SUCCESS',
    });
    expect(typeof logout.durationMs).toBe('number');
    expect(end!.steps!.find((x) => x.id === 'delete:sdd')!.commands[0]).toEqual({
      write: { path: '/sys/block/sdd/device/delete', data: '1' },
    });
  });

  it('cleanup of an orphaned kubelet dir: logout, then unlink iscsi.json and rmdir (never recursive)', async () => {
    env = await simEnv('incident');
    const dir = GP('10.0.0.11:3260', 'grafana-data');
    const { plan, result } = await env.run('cleanup', [dir]);
    expect(plan.steps.slice(-2).map((s) => s.fs)).toEqual([
      { op: 'unlink', path: `${dir}/iscsi.json` },
      { op: 'rmdir', path: dir },
    ]);
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    expect(env.host.lstat(dir)).toBeUndefined();
    expect(env.snap().sessions.some((x) => x.targetIqn === IQN('grafana-data'))).toBe(false);
  });

  it('rmdir refuses a kubelet dir that holds more than iscsi.json (data is never deleted)', async () => {
    env = await simEnv('incident');
    const dir = GP('10.0.0.11:3260', 'grafana-data');
    env.host.writeText(`${dir}/precious.db`, 'data');
    const { result } = await env.run('cleanup', [dir]);
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe('refused');
    expect(result.error?.message).toMatch(/precious\.db/);
    expect(env.host.readText(`${dir}/precious.db`)).toBe('data');
  });

  it('delete-device of a failed path of a live map keeps the map; a working path or a mounted disk is refused', async () => {
    env = await simEnv('incident');
    expect(ids(env.plan('delete-device', ['sdb']))).toEqual(['held']);
    expect(ids(env.plan('delete-device', ['sda']))).toEqual(['mounted']);
    const { plan, result } = await env.run('delete-device', ['sdc']);
    expect(plan.refusals).toEqual([]);
    expect(plan.steps.map((s) => s.id)).toEqual(['delete:sdc']); // no flushbufs on a dead path
    expect(plan.steps[0]!.write).toEqual({ path: '/sys/block/sdc/device/delete', data: '1' });
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    const s = env.snap();
    expect(s.multipath[0]?.slaves).toEqual(['sdb']);
  });

  it("delete-device of a swap device or of a block volume held open by kubelet's loop device is refused", async () => {
    env = await simEnv('incident');
    const swaps = env.host.readText('/proc/swaps') ?? 'Filename\tType\tSize\tUsed\tPriority\n';
    // Someone ran `swapon /dev/sdd` (the simulator has no swapon: write its /proc/swaps under the root).
    fs.writeFileSync(
      join(env.host.root, 'proc/swaps'),
      `${swaps}/dev/sdd                                partition\t1048572\t0\t-2\n`,
    );
    expect(ids(env.plan('delete-device', ['sdd']))).toEqual(['swap']);
    await env.close();
    env = await simEnv('healthy');
    const ledger = env.snap().sessions.find((x) => x.targetIqn === IQN('raw-ledger'))!;
    const dev = ledger.devices.find((d) => d.name)!;
    expect(dev.loops.length).toBeGreaterThan(0);
    expect(ids(env.plan('delete-device', [dev.name!]))).toContain('open');
  });

  it('flush of a mounted map is refused', async () => {
    env = await simEnv('incident');
    const plan = env.plan('flush', ['mpatha']);
    expect(ids(plan)).toEqual(['mounted']);
    const result = await applyPlan(plan, env.ctx, { force: true });
    expect(result.error?.kind).toBe('refused');
    expect(env.snap().multipath).toHaveLength(1);
  });

  it('delete-device then scan brings the LUN back (targeted 0 0 L)', async () => {
    env = await simEnv('incident');
    const del = await env.run('delete-device', ['sdd']);
    expect(del.result.verified).toBe(true);
    expect(
      env
        .snap()
        .sessions.find((x) => x.sid === 4)
        ?.devices.some((d) => d.lun === 1),
    ).toBe(false);
    const { plan, result } = await env.run('scan', ['4', '1']);
    expect(plan.steps[0]!.write?.data).toBe('0 0 1');
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    expect(
      env
        .snap()
        .sessions.find((x) => x.sid === 4)
        ?.devices.some((d) => d.lun === 1 && d.name),
    ).toBe(true);
  });

  it('online sets an offline device back to running', async () => {
    env = await simEnv('incident');
    env.host.sim.deviceOffline('sdd');
    const { result } = await env.run('online', ['sdd']);
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    expect(
      env
        .snap()
        .sessions.find((x) => x.sid === 4)
        ?.devices.find((d) => d.name === 'sdd')?.state,
    ).toBe('running');
  });

  it('rescan runs iscsiadm --rescan on the session', async () => {
    env = await simEnv('incident');
    const { plan, result } = await env.run('rescan', ['1']);
    expect(plan.steps[0]!.argv).toEqual(['iscsiadm', '-m', 'session', '-r', '1', '--rescan']);
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
  });

  it('unmount is refused while pods bind-mount the global dir; --force unmounts only the global mount', async () => {
    env = await simEnv('incident');
    const gp = GP('10.0.0.10:3260', 'postgres-data');
    const plan = env.plan('unmount', [gp]);
    expect(plan.refusals.map((r) => [r.id, r.overridable])).toEqual([['pod-mounts', true]]);
    const refused = await applyPlan(plan, env.ctx);
    expect(refused.error?.kind).toBe('refused');
    expect(env.snap().mounts.some((m) => m.mountPoint === gp)).toBe(true);
    const forced = await applyPlan(plan, env.ctx, { force: true });
    expect(forced.error).toBeUndefined();
    expect(forced.verified).toBe(true);
    expect(env.snap().mounts.some((m) => m.mountPoint === gp)).toBe(false);
  });

  it('unmount of a global mount without pods, then cleanup of the now orphaned volume', async () => {
    env = await simEnv('incident');
    const gp = GP('10.0.0.10:3260', 'postgres-data');
    const pod = env.snap().kubelet.podVolumes.find((p) => p.globalPath === gp)!;
    await env.host.run(['umount', pod.path]);
    env.host.rmdir(pod.path);
    const u = await env.run('unmount', [gp]);
    expect(u.plan.refusals).toEqual([]);
    expect(u.result.verified).toBe(true);
  });

  it('logout: in-use is refused; foreign is refused (overridable) and its mounted disk too', async () => {
    env = await simEnv('incident');
    expect(ids(env.plan('logout', ['1']))).toEqual(['in-use', 'mounted']);
    const foreign = env.plan('logout', ['6']);
    expect(ids(foreign)).toEqual(['foreign', 'mounted']);
    expect(foreign.refusals.find((r) => r.id === 'foreign')?.overridable).toBe(true);
    expect(foreign.refusals.find((r) => r.id === 'mounted')?.overridable).toBe(false);
    const r = await applyPlan(foreign, env.ctx, { force: true });
    expect(r.error?.kind).toBe('refused');
    expect(env.snap().sessions.some((x) => x.sid === 6)).toBe(true);
  });

  it('logout of all portals of a target once nothing uses it: devices, logout, record, verified', async () => {
    env = await simEnv('incident');
    await env.host.run(['umount', '/mnt/backup']);
    env.host.sim.mountsChanged();
    const plan = env.plan('logout', [IQN('nightly-backup')]);
    expect(plan.refusals).toEqual([]);
    expect(plan.confirm).toBe('typed');
    expect(plan.confirmToken).toBe('6');
    const r = await applyPlan(plan, env.ctx);
    expect(r.error).toBeUndefined();
    expect(r.verified).toBe(true);
    const s = env.snap();
    expect(s.sessions.some((x) => x.targetIqn === IQN('nightly-backup'))).toBe(false);
    expect(s.nodeRecords.some((x) => x.targetIqn === IQN('nightly-backup'))).toBe(false);
  });

  it('forget: deleting a record in use is refused; --manual sets node.startup=manual', async () => {
    env = await simEnv('incident');
    expect(ids(env.plan('forget', [IQN('nightly-backup')]))).toEqual(['session-active']);
    const { plan, result } = await env.run('forget', [IQN('nightly-backup')], { manual: true });
    expect(plan.steps[0]!.argv).toEqual([
      'iscsiadm',
      '-m',
      'node',
      '-p',
      '10.0.0.11:3260',
      '-T',
      IQN('nightly-backup'),
      '-I',
      'default',
      '-o',
      'update',
      '-n',
      'node.startup',
      '-v',
      'manual',
    ]);
    expect(result.verified).toBe(true);
    expect(env.snap().nodeRecords.find((r) => r.targetIqn === IQN('nightly-backup'))?.startup).toBe('manual');
  });

  it('forget deletes a record without a session', async () => {
    env = await simEnv('incident');
    await env.run('cleanup', ['4']);
    await env.host.run(['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', '10.0.0.10:3260']);
    expect(env.snap().nodeRecords.some((r) => r.targetIqn === IQN('old-logs'))).toBe(true);
    const { result } = await env.run('forget', [`${IQN('old-logs')}@10.0.0.10:3260`]);
    expect(result.error).toBeUndefined();
    expect(env.snap().nodeRecords.some((r) => r.targetIqn === IQN('old-logs'))).toBe(false);
  });

  it('cleanup of an in-use session is refused', async () => {
    env = await simEnv('incident');
    expect(ids(env.plan('cleanup', ['7']))).toContain('in-use');
  });

  it('outage guard: cleanup of a session whose whole portal failed at once is refused unless forced', async () => {
    env = await simEnv('incident');
    env.host.sim.portalDown('10.0.0.10:3260');
    const plan = env.plan('cleanup', ['4']);
    expect(ids(plan)).toEqual(['outage']);
    expect(plan.refusals[0]!.overridable).toBe(true);
    expect((await applyPlan(plan, env.ctx)).error?.kind).toBe('refused');
    expect(env.snap().sessions.some((x) => x.sid === 4)).toBe(true);
  });

  it('read-only: every plan is refused and nothing changes', async () => {
    env = await simEnv('incident', false);
    const plan = env.plan('cleanup', ['4']);
    expect(ids(plan)).toEqual(['read-only']);
    const r = await applyPlan(plan, env.ctx, { force: true });
    expect(r.error?.kind).toBe('refused');
    expect(r.error?.exitCode).toBe(3);
    expect(env.snap().sessions.some((x) => x.sid === 4)).toBe(true);
  });

  it('apply re-checks preconditions by fingerprint: a device that got mounted after planning stops the plan', async () => {
    env = await simEnv('incident');
    const plan = env.plan('delete-device', ['sdd']);
    env.host.mkdir('/mnt/late');
    await env.host.run(['mount', '/dev/sdd', '/mnt/late']);
    env.host.sim.mountsChanged();
    const r = await applyPlan(plan, env.ctx);
    expect(r.ok).toBe(false);
    expect(r.error?.kind).toBe('refused');
    expect(r.error?.message).toMatch(/mounted/);
    expect(r.steps.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(
      env
        .snap()
        .sessions.find((x) => x.sid === 4)
        ?.devices.some((d) => d.name === 'sdd'),
    ).toBe(true);
  });
});
