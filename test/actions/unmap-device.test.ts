/**
 * A kubelet block volume's device node bind mount (`<globalMapPath>/<podUID>`, devtmpfs MAJ:MIN,
 * root `/sdX`) on a fixture root: reported as its own use, keeps the session in use, and cleanup of
 * the orphaned block dir unmaps it the way kubelet's UnmapDevice does before the device goes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findAction } from '../../src/engine/actions/registry.js';
import type { ActionContext } from '../../src/engine/actions/types.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { FixtureRoot, IQN1, iscsiJson, KROOT, P1 } from '../snapshot/fixture-root.js';

const fixtures: FixtureRoot[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

/** The single capture with LUN 2 (sdb) mapped as a block volume whose pod is gone. */
function leftoverBlock() {
  const f = new FixtureRoot('single-sysfs.json');
  fixtures.push(f);
  const g = f.blockVolume(P1, IQN1, 2, iscsiJson('pv-b', [P1], IQN1, 2), ['uid-gone']);
  f.loop('loop0', `${g}/uid-gone`);
  f.mountinfo([`42 23 0:5 /sdb ${g}/uid-gone rw,nosuid shared:2 - devtmpfs udev rw,size=4000k,mode=755`]);
  return { f, g };
}

/** The cleanup plan of kubelet dir `g` on the fixture, as the CLI would build it. */
function cleanupPlan(f: FixtureRoot, g: string) {
  const host = f.host();
  const snap = takeSnapshot(host, { kubeletRoot: KROOT });
  const ctx: ActionContext = {
    host,
    kubeletRoot: KROOT,
    stateDir: '/var/log/iscsi-console',
    write: true,
    takeSnapshot: () => takeSnapshot(host, { kubeletRoot: KROOT }),
  };
  const def = findAction('cleanup');
  return def.plan(def.inputFromCli([g], {}, snap), snap, ctx);
}

describe('block-volume bind mounts', () => {
  it('are not filesystem mounts of the device, but still make the session in use', () => {
    const { f, g } = leftoverBlock();
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const sdb = snap.sessions[0]!.devices.find((d) => d.name === 'sdb')!;
    expect(sdb.mountpoints).toEqual([]);
    expect(sdb.blockBinds).toEqual([
      { path: `${g}/uid-gone`, via: 'sdb', kubelet: true, podUid: 'uid-gone' },
    ]);
    expect(snap.sessions[0]!.verdict).toBe('in-use');
    expect(snap.sessions[0]!.reasons.join('\n')).toMatch(
      /sdb's device node is bound at .*uid-gone \(kubelet block volume, pod uid-gone \(name unknown\)\)/,
    );
  });

  it('a bind mount outside the kubelet root makes the session foreign', () => {
    const f = new FixtureRoot('single-sysfs.json');
    fixtures.push(f);
    f.mountinfo(['42 23 0:5 /sdb /srv/raw rw,nosuid shared:2 - devtmpfs udev rw']);
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.verdict).toBe('foreign');
    expect(s.devices.find((d) => d.name === 'sdb')!.blockBinds?.[0]).toMatchObject({
      path: '/srv/raw',
      kubelet: false,
    });
  });

  it('cleanup of the orphaned block dir: losetup -d, umount, unlink the entry (UnmapDevice), then the device', () => {
    const { f, g } = leftoverBlock();
    const plan = cleanupPlan(f, g);
    expect(plan.refusals).toEqual([]);
    const ids = plan.steps.map((s) => s.id);
    const at = (p: string) => ids.findIndex((i) => i.startsWith(p));
    expect(plan.steps[at('losetup-d:')]!.argv).toEqual(['losetup', '-d', '/dev/loop0']);
    expect(plan.steps[at('umount:')]!.argv).toEqual(['umount', `${g}/uid-gone`]);
    expect(plan.steps[at(`unlink:${g}/uid-gone`)]!.fs).toEqual({ op: 'unlink', path: `${g}/uid-gone` });
    expect(at('losetup-d:')).toBeLessThan(at('umount:'));
    expect(at('umount:')).toBeLessThan(at(`unlink:${g}/uid-gone`));
    // the device delete comes after the unmap, and is not refused for the bind or the loop.
    const del = ids.findIndex((i) => i.includes('delete'));
    expect(del).toBeGreaterThan(at(`unlink:${g}/uid-gone`));
    expect(plan.blastRadius.mounts).toContain(`${g}/uid-gone`);
  });

  it('cleanup still refuses while a pod uses the block volume', () => {
    const { f, g } = leftoverBlock();
    f.podBlockVolume('uid-gone', 'pv-b', '/dev/sdb');
    const plan = cleanupPlan(f, g);
    expect(plan.refusals.map((r) => r.id)).toContain('in-use');
  });
});
