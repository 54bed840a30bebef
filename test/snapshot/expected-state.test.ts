/**
 * Expected state (src/engine/snapshot/expected.ts) and its two problems, through the simulator: a
 * kubelet-style attach of a two-portal volume while one portal is down leaves iscsi.json listing
 * both portals and one session (kubelet's AttachDisk carries on with the portals whose login worked).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findAction } from '../../src/engine/actions/registry.js';
import { nodeProblems } from '../../src/engine/snapshot/problems.js';
import { type SimEnv, simEnv } from '../actions/helpers.js';
import { degradedVolume, GLOBAL, IQN, P1, P2 } from '../helpers/degraded-volume.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('expected state', () => {
  it('per target: expected, logged-in and missing portals; per volume: the LUN and the device it resolved to', async () => {
    env = await degradedVolume({ pod: true });
    const snap = env.snap();
    const t = snap.expected?.targets.find((x) => x.iqn === IQN);
    expect(t?.expectedPortals).toEqual([P1, P2]);
    expect(t?.loggedInPortals).toEqual([P1]);
    expect(t?.missingPortals).toEqual([P2]);
    expect(t?.volumes).toEqual([GLOBAL]);
    const sid = snap.sessions.find((s) => s.targetIqn === IQN)!.sid;
    expect(
      t?.portals.map((r) => [
        r.portal,
        r.expected,
        r.sessions.map((s) => s.state),
        r.paths.map((p) => p.device ?? null),
      ]),
    ).toEqual([
      [P1, true, ['LOGGED_IN'], ['sda']],
      [P2, true, [], [null]],
    ]);
    const v = snap.expected?.volumes.find((x) => x.path === GLOBAL);
    expect(v).toMatchObject({
      source: 'in-tree',
      name: 'pv-x',
      iqn: IQN,
      iface: 'default',
      expectedPaths: 2,
      paths: 1,
    });
    expect(v?.expectedLuns).toEqual([
      {
        lun: 1,
        device: 'sda',
        paths: [
          { portal: P1, sid, sessionState: 'LOGGED_IN', device: 'sda', deviceState: 'running' },
          { portal: P2 },
        ],
      },
    ]);
  });

  it('the missing portal is a degraded problem on the volume and in the summary line', async () => {
    env = await degradedVolume({ pod: true });
    const p = nodeProblems(env.snap());
    const want = `volume pv-x has 1 of 2 paths: portal ${P2} not logged in`;
    expect(p.volumes.get(GLOBAL)).toMatchObject({ severity: 'degraded', reasons: [want] });
    expect(p.expected.get(GLOBAL)).toMatchObject({ kind: 'missing-path', reason: want });
    expect(p.summary).toBe(want);
    expect(p.expected.get(GLOBAL)?.hint).toBe('iscsi-console restore pv-x --write');
  });

  it('a LUN whose device is gone is a failed problem naming the LUN and the PV; scan is offered with the LUN', async () => {
    env = await degradedVolume({ pod: true });
    await env.host.sim.kubeletAttach({
      portals: [P1],
      iqn: IQN,
      lun: 3,
      volName: 'pv-y',
      podUIDs: ['22222222-2222-4333-8444-555555555555'],
      mode: 'block',
    });
    const sd = env.snap().sessions[0]!.devices.find((d) => d.lun === 3)!.name!;
    // The kernel removes the disk (a target-side unmap, then the kernel's own delete).
    env.host.writeText(`/sys/block/${sd}/device/delete`, '1');
    const g3 = GLOBAL.replace('-lun-1', '-lun-3');
    const p = nodeProblems(env.snap());
    expect(p.volumes.get(g3)?.severity).toBe('failed');
    expect(p.volumes.get(g3)?.reasons[0]).toBe('LUN 3 expected by pv-y has no device');
    expect(p.expected.get(g3)?.kind).toBe('missing-lun');
    expect(p.summary).toContain('2 volumes short of expected paths or LUNs');
    // scan is offered from the problem with its LUN filled in: the CLI's hint, the console's row action.
    const sid = env.snap().sessions[0]!.sid;
    expect(p.expected.get(g3)?.hint).toBe(`iscsi-console scan ${sid} 3 --write`);
    const scan = findAction('scan');
    const input = scan.inputFromSelection!({ scope: 'volume', key: g3 }, env.snap());
    expect(input).toEqual({ sessionKey: env.snap().sessions[0]!.key, lun: 3 });
    const { result } = await env.run('scan', [String(sid), '3']);
    expect(result.verified).toBe(true);
    expect(nodeProblems(env.snap()).expected.has(g3)).toBe(false);
  });

  it('a healthy two-portal volume expects nothing more', async () => {
    env = await simEnv('empty');
    env.host.sim.addTarget({ iqn: IQN, portals: [P1, P2], luns: [{ lun: 1, sizeBytes: 1 << 30 }] });
    await env.host.sim.kubeletAttach({
      portals: [P1, P2],
      iqn: IQN,
      lun: 1,
      volName: 'pv-x',
      podUIDs: [],
      mode: 'block',
    });
    const snap = env.snap();
    const v = snap.expected?.volumes[0];
    expect(v?.missingPortals).toEqual([]);
    expect(v?.paths).toBe(2);
    expect(v?.expectedLuns[0]?.device).toMatch(/^dm-\d+$/);
    expect(v?.expectedLuns[0]?.map).toBe('mpatha');
    expect(nodeProblems(snap).expected.size).toBe(0);
  });
});
