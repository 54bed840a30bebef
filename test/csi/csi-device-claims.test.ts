/**
 * Per-device claims (docs/csi-drivers.md "Per-device claims"): each LUN says which owner claims it —
 * the in-tree plugin's kubelet dir, a CSI volume mounted from it, a driver file naming its LUN, a
 * Longhorn device link — and claims that know only the target apply to each of its disks.
 */
import { describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/commands/status-text.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import type { SimEnv } from '../actions/helpers.js';
import { IQN1, KROOT, P1 } from '../snapshot/fixture-root.js';
import { testNodes } from './helpers.js';

const nodes = testNodes();
let env: SimEnv;

const owners = (d: { claims?: { owner: string; driver: string }[] }) =>
  (d.claims ?? []).map((c) => `${c.owner} ${c.driver}`);

describe('per-device claims', () => {
  it('--demo csi: the mounted, the file-named, the linked and the target-named LUNs; LUN 0 controllers none', async () => {
    env = await nodes.sim('csi');
    const s = env.snap();
    const lun = (suffix: string, n: number) =>
      s.sessions.find((x) => x.targetIqn.includes(suffix))!.devices.find((d) => d.lun === n)!;
    expect(owners(lun('csi-web', 1))).toEqual(['csi iscsi.csi.k8s.io', 'driver-file iscsi.csi.k8s.io']);
    expect(owners(lun('csi-web', 0))).toEqual([]);
    expect(owners(lun('csi-queue', 1))).toEqual(['driver-file iscsi.csi.k8s.io']);
    expect(owners(lun('00000202', 1))).toEqual(['driver-target driver.longhorn.io']);
    const zombie = lun('00000302', 1).claims![0]!;
    expect(zombie).toMatchObject({ owner: 'csi', driver: 'org.democratic-csi.iscsi', mounted: false });
    expect(zombie.why).toMatch(/carries its name \(every LUN of the target\)$/);
    expect(owners(lun('csi-leftover', 1))).toEqual([]);
    const text = formatStatus(s, (t) => t);
    expect(text).toMatch(
      /lun 1 sda .*claimed by csi-driver-iscsi PV pv-csi-web, csi-driver-iscsi PV pv-csi-web \(its file\)/,
    );
  });

  it('--demo incident: in-tree LUNs are claimed by the in-tree plugin through their kubelet dir', async () => {
    env = await nodes.sim('incident');
    const s = env.snap();
    const pg = s.sessions
      .find((x) => x.targetIqn.endsWith(':postgres-data'))!
      .devices.find((d) => d.lun === 1)!;
    expect(pg.claims).toEqual([
      expect.objectContaining({ owner: 'in-tree', driver: 'kubernetes.io/iscsi', mounted: true }),
    ]);
    expect(pg.claims![0]!.why).toMatch(/^kubelet global dir .*postgres-data-lun-1 names LUN 1$/);
    // A session nothing claims has no device claims.
    for (const x of s.sessions.filter((y) => y.verdict === 'stale'))
      for (const d of x.devices) expect(d.claims).toBeUndefined();
  });

  it('--root: a connector naming LUN 1 claims that LUN only', () => {
    const f = nodes.root();
    f.write(
      '/var/run/iscsi.csi.k8s.io/iscsi-vol-0001.json',
      JSON.stringify({ target_iqn: IQN1, target_portal: [P1], lun: 1 }),
    );
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    const claimed = s.devices.filter((d) => d.claims).map((d) => d.lun);
    expect(claimed).toEqual([1]);
    expect(s.claims?.[0]?.luns).toEqual([1]);
  });
});
