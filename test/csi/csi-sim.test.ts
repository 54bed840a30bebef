/**
 * The `csi` simulator scenario (docs/csi-drivers.md#how-the-console-decides-srcenginesnapshotcsi): every driver's sessions get
 * the verdict that page gives, cleanup refuses what a driver claims (and Longhorn's), succeeds once the claim is gone,
 * and the CHAP secret the driver files hold never reaches status, plans, results or the journal.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/commands/status-text.js';
import { formatPlan, formatResult } from '../../src/engine/actions/format.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { DEMO_DRIVER_SECRET } from '../../src/sim/csi-node.js';
import { type SimEnv, STATE_DIR, simEnv } from '../actions/helpers.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const ids = (p: { refusals: { id: string }[] }) => p.refusals.map((r) => r.id);

describe('--demo csi', () => {
  it('claimed and mounted → in-use; claimed and unmounted → claimed; claim gone → stale, driver named', async () => {
    env = await simEnv('csi');
    const s = env.snap();
    const by = (suffix: string) => s.sessions.find((x) => x.targetIqn.includes(suffix))!;
    expect(
      [
        'csi-web',
        'csi-queue',
        'csi-leftover',
        'c21e8',
        'c22e8',
        '00000201',
        '00000202',
        '00000301',
        '00000302',
        '00000303',
      ].map((k) => [k, by(k).verdict]),
    ).toEqual([
      ['csi-web', 'in-use'],
      ['csi-queue', 'claimed'],
      ['csi-leftover', 'stale'],
      ['c21e8', 'in-use'],
      ['c22e8', 'claimed'],
      ['00000201', 'in-use'],
      ['00000202', 'claimed'],
      ['00000301', 'in-use'],
      ['00000302', 'claimed'],
      ['00000303', 'stale'],
    ]);
    expect(by('csi-leftover').reasons.join('\n')).toContain('created by csi-driver-iscsi');
    expect(by('00000303').reasons.join('\n')).toContain(
      'created by democratic-csi (org.democratic-csi.iscsi)',
    );
    expect(s.csi!.drivers.find((d) => d.name === 'iscsi.csi.k8s.io')).toMatchObject({
      registered: true,
      running: true,
    });
    expect(JSON.stringify(s)).not.toContain(DEMO_DRIVER_SECRET);
    expect(formatStatus(s, (t) => t)).not.toContain(DEMO_DRIVER_SECRET);
  });

  it('cleanup refuses claimed sessions and Longhorn (overridable), and cleans up a leftover', async () => {
    env = await simEnv('csi');
    const s = env.snap();
    const sid = (suffix: string) => String(s.sessions.find((x) => x.targetIqn.includes(suffix))!.sid);
    const queue = env.plan('cleanup', [sid('csi-queue')]);
    expect(ids(queue)).toEqual(['driver-claimed']);
    expect(queue.refusals[0]!.reason).toContain(
      'csi-driver-iscsi is running (iscsiplugin (pid 1201)) and may still act on this',
    );
    expect(queue.refusals[0]!.overridable).toBe(true);
    expect(ids(env.plan('cleanup', [sid('00000202')]))).toEqual(['driver-claimed', 'longhorn']);
    expect(ids(env.plan('cleanup', [sid('00000201')]))).toContain('longhorn');
    expect(ids(env.plan('cleanup', [sid('00000301')]))).toContain('in-use');
    expect(ids(env.plan('logout', [sid('c22e8')]))).toEqual(['driver-claimed']);

    const { result } = await env.run('cleanup', [sid('csi-leftover')]);
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    expect(env.snap().sessions.some((x) => x.targetIqn.includes('csi-leftover'))).toBe(false);
  });

  it('a forced cleanup of a driver-claimed session keeps the running driver’s file; the admin can ask', async () => {
    env = await simEnv('csi');
    const sid = String(env.snap().sessions.find((x) => x.targetIqn.includes('csi-queue'))!.sid);
    const conn = '/var/run/iscsi.csi.k8s.io/iscsi-csi-queue-handle.json';
    const kept = env.plan('cleanup', [sid]);
    expect(kept.steps.some((x) => x.fs?.path === conn)).toBe(false);
    const { plan, result } = await env.run(
      'cleanup',
      [sid],
      { 'remove-driver-files': true },
      { force: true },
    );
    expect(plan.steps.at(-1)).toMatchObject({ fs: { op: 'unlink', path: conn } });
    expect(result.error).toBeUndefined();
    expect(env.host.lstat(conn)).toBeUndefined();
    const texts = [formatPlan(plan), formatResult(result), JSON.stringify(readJournal(env.host, STATE_DIR))];
    for (const t of texts) expect(t).not.toContain(DEMO_DRIVER_SECRET);
  });
});

describe('doctor on --demo csi', () => {
  it('lists the registered drivers and whether their node plugins run', async () => {
    const { runDoctor } = await import('../../src/engine/doctor/index.js');
    env = await simEnv('csi');
    const report = await runDoctor(env.host, { kubeletRoot: '/var/lib/kubelet', exec: 'direct' });
    const c = report.checks.find((x) => x.id === 'csi.drivers')!;
    expect(c.status).toBe('pass');
    expect(c.evidence).toContain(
      'iscsi.csi.k8s.io (csi-driver-iscsi): registered; node plugin running: iscsiplugin (pid 1201); 3 CSI volume(s), 2 driver file(s)',
    );
    expect(c.evidence).toContain(
      'org.democratic-csi.iscsi (democratic-csi (org.democratic-csi.iscsi)): registered; node plugin running: democratic-csi --csi-mode=node (pid 1501)',
    );
    expect(c.evidence).toContain('node plugin running: trident_orchestrator --csi_role=node (pid 1301)');
    expect(c.evidence).toContain('node plugin running: longhorn-manager csi (pid 1401)');
    env.host.sim.tree.remove('/proc/1201');
    const again = await runDoctor(env.host, { kubeletRoot: '/var/lib/kubelet', exec: 'direct' });
    const w = again.checks.find((x) => x.id === 'csi.drivers')!;
    expect(w.status).toBe('warn');
    expect(w.hint).toContain('iscsi.csi.k8s.io: volumes on this node but no running, registered node plugin');
  });
});

describe('console views on --demo csi', () => {
  it('the Volumes view lists CSI volumes; the session detail continues to the CSI volume and its pods', async () => {
    const { volumeRows } = await import('../../src/ui/views/volumes.js');
    const { sessionDetailLines } = await import('../../src/ui/views/session-detail.js');
    env = await simEnv('csi');
    const s = env.snap();
    const rows = volumeRows(s);
    const web = rows.find((r) => r.fields.pv === 'pv-csi-web')!;
    // The driver named whole; the row is the cleanup's (`C`) input by its main path.
    expect(web.cells.slice(1, 5)).toEqual(['fs', '-', 'yes', 'csi-driver-iscsi']);
    expect(web.fields).toMatchObject({ driver: 'iscsi.csi.k8s.io', handle: 'csi-web-handle' });
    expect(web.scope).toBe('csi-volume');
    expect(web.actionKey).toBe(web.fields.path);
    expect(rows.filter((r) => r.key.startsWith('csi:'))).toHaveLength(s.csi!.volumes.length);
    const queue = s.sessions.find((x) => x.targetIqn.endsWith(':csi-queue'))!;
    const text = sessionDetailLines(s, queue).map((l) => l.text);
    expect(text).toContain('CSI claims (1)');
    expect(text.join('\n')).toMatch(
      /CSI volume pv-csi-queue \(csi-driver-iscsi, filesystem\)\n.*staging .*\/globalmount\n.*→ pod .* publish .*pv-csi-queue\/mount \(not mounted\)/,
    );
    for (const x of s.sessions)
      expect(
        sessionDetailLines(s, x)
          .map((l) => l.text)
          .join('\n'),
      ).not.toContain(DEMO_DRIVER_SECRET);
  });
});
