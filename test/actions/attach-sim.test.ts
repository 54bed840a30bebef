import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/actions/journal.js';
import { type SimEnv, simEnv, STATE_DIR } from './helpers.js';

const T1 = 'iqn.2026-01.lab.example:storage.target1';
let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('attach on the simulator', () => {
  it('attaches, mounts, writes iscsi.json exactly like kubelet, and kubelet can detach it', async () => {
    env = await simEnv('empty');
    const { plan, result } = await env.run('attach', [], {
      portal: ['127.0.0.1:3260'],
      iqn: T1,
      lun: '1',
      'volume-name': 'pv1',
    });
    expect(plan.refusals).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.verified).toBe(true);
    const s = env.snap();
    const session = s.sessions.find((x) => x.targetIqn === T1);
    expect(session?.state).toBe('LOGGED_IN');
    expect(session?.devices.map((d) => d.lun)).toContain(1);
    const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${T1}-lun-1`;
    expect(s.mounts.some((m) => m.mountPoint === gp)).toBe(true);
    const rec = s.nodeRecords.find((r) => r.targetIqn === T1 && r.portal === '127.0.0.1:3260');
    expect(rec?.startup).toBe('manual');
    expect(rec?.scan).toBe('manual');
    expect(readJournal(env.host, STATE_DIR).map((e) => e.phase)).toEqual(['begin', 'end']);
    // kubelet after a restart knows the volume only from disk: register it with deliberately wrong
    // in-memory options, so the detach can only succeed through the iscsi.json we wrote.
    env.host.sim.kubelet.volumes.set(gp, {
      opts: { portals: ['192.0.2.1:3260'], iqn: 'iqn.2000-01.invalid:wrong', lun: 9, volName: 'pv1', podUIDs: [] },
      globalPath: gp,
      devicePath: result.devicePath ?? '',
      pods: new Set(),
    });
    await env.host.sim.kubeletDetach(gp, []);
    const after = env.snap();
    expect(after.sessions.find((x) => x.targetIqn === T1)).toBeUndefined();
    expect(after.mounts.some((m) => m.mountPoint === gp)).toBe(false);
  });
});
