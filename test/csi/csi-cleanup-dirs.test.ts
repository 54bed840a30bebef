/**
 * cleanup of kubelet's leftover CSI volume dirs (docs/csi-drivers.md "Cleaning up kubelet's leftover CSI
 * dirs"): only when nothing mounts the volume and no session is claimed through it (else refused, the
 * claim overridable), only where the paths match kubelet's layout, one unlink and rmdirs in kubelet's
 * order (publish before staging), never recursive — a dir holding anything else stays and is reported.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatPlan } from '../../src/engine/actions/format.js';
import { isKubeletCsiVolumePath } from '../../src/engine/snapshot/csi/paths.js';
import { DEMO_DRIVER_SECRET } from '../../src/sim/csi-node.js';
import type { SimEnv } from '../actions/helpers.js';
import { mkHostDir } from '../helpers/materialize-sysfs.js';
import { type FixtureRoot, IQN1, KROOT, P1 } from '../snapshot/fixture-root.js';
import { rootCleanupPlan, testNodes } from './helpers.js';

const DRIVER = 'iscsi.csi.k8s.io';
const HANDLE = 'vol-0001';
const PV = 'pv-data-1';
const POD = '5f6e7d8c-0000-4000-8000-000000000001';
const sha = (h: string) => createHash('sha256').update(h).digest('hex');
const STAGING_DIR = `${KROOT}/plugins/kubernetes.io/csi/${DRIVER}/${sha(HANDLE)}`;
const PUBLISH_DIR = `${KROOT}/pods/${POD}/volumes/kubernetes.io~csi/${PV}`;

const nodes = testNodes();
let env: SimEnv;

/** The single-session capture with one CSI volume's kubelet dirs, laid out as kubelet writes them. */
function node(o: { stagingDir?: string; handle?: string } = {}): FixtureRoot {
  const f = nodes.root();
  const st = o.stagingDir ?? STAGING_DIR;
  f.write(`${st}/vol_data.json`, JSON.stringify({ driverName: DRIVER, volumeHandle: o.handle ?? HANDLE }));
  mkHostDir(f.root, `${st}/globalmount`);
  f.write(
    `${PUBLISH_DIR}/vol_data.json`,
    JSON.stringify({
      specVolID: PV,
      volumeHandle: o.handle ?? HANDLE,
      driverName: DRIVER,
      nodeName: 'node-a',
      attachmentID: 'csi-x',
      volumeLifecycleMode: 'Persistent',
    }),
  );
  mkHostDir(f.root, `${PUBLISH_DIR}/mount`);
  return f;
}

function plan(f: FixtureRoot, ref = `${STAGING_DIR}/globalmount`) {
  return rootCleanupPlan(f, ref);
}

const fsSteps = (p: ReturnType<typeof plan>) => p.steps.map((s) => `${s.fs?.op} ${s.fs?.path}`);

describe('kubelet CSI dirs on a --root tree', () => {
  it('a leftover (nothing mounted, no session claimed through it): kubelet’s removeMountDir order, publish before staging', () => {
    const f = node();
    const p = plan(f);
    expect(p.title).toBe('Clean up CSI volume dirs');
    expect(p.refusals).toEqual([]);
    expect(fsSteps(p)).toEqual([
      `rmdir ${PUBLISH_DIR}/mount`,
      `unlink ${PUBLISH_DIR}/vol_data.json`,
      `rmdir ${PUBLISH_DIR}`,
      `rmdir ${STAGING_DIR}/globalmount`,
      `unlink ${STAGING_DIR}/vol_data.json`,
      `rmdir ${STAGING_DIR}`,
    ]);
    // Preconditions by fingerprint: the same volume, still unclaimed and unmounted, dirs holding only kubelet's files.
    expect(p.steps[0]!.preconditions.map((c) => [c.id, c.value])).toEqual([
      ['not-mounted', undefined],
      ['csi-volume-is', `${DRIVER}|${HANDLE}|${PV}`],
      ['csi-volume-claims-only', ''],
      ['dir-holds-only', 'mount,vol_data.json'],
      ['dir-holds-only', ''],
    ]);
    expect(p.steps[3]!.preconditions[1]).toMatchObject({ id: 'csi-volume-is', value: `${DRIVER}|${HANDLE}` });
    expect(p.confirm).toBe('typed');
    // The same plan from the publish path or the volume dirs themselves.
    expect(fsSteps(plan(f, PUBLISH_DIR))).toEqual(fsSteps(p));
    expect(fsSteps(plan(f, `${PUBLISH_DIR}/mount/`))).toEqual(fsSteps(p));
  });

  it('mounted → refused, not overridable; another mount of the pod → refused (the pod runs)', () => {
    const f = node();
    f.mountinfo([`40 22 8:0 / ${PUBLISH_DIR}/mount rw,relatime shared:30 - ext4 /dev/sda rw`]);
    // Mounting sda there also claims its session: in use holds whatever the override lifts.
    expect(plan(f).refusals.map((r) => [r.id, r.overridable])).toEqual([
      ['in-use', false],
      ['driver-claimed', true],
    ]);
    f.mountinfo([
      `41 22 0:50 / ${KROOT}/pods/${POD}/volumes/kubernetes.io~projected/kube-api-access-x rw - tmpfs tmpfs rw`,
    ]);
    const r = plan(f).refusals;
    expect(r.map((x) => [x.id, x.overridable])).toEqual([['pod-running', false]]);
    expect(r[0]!.reason).toContain(`pod ${POD} still has mounted volumes`);
  });

  it('a session claimed through the volume → driver-claimed, overridable; CHAP never shown', () => {
    const f = node();
    f.write(
      `/var/run/iscsi.csi.k8s.io/iscsi-${HANDLE}.json`,
      JSON.stringify({
        volume_name: HANDLE,
        target_iqn: IQN1,
        target_portal: [P1],
        lun: 1,
        session_secrets: { userName: 'node-user', password: 'S3cr3t-CHAP-value' },
      }),
    );
    const p = plan(f);
    expect(p.refusals.map((r) => [r.id, r.overridable])).toEqual([['driver-claimed', true]]);
    expect(p.refusals[0]!.reason).toContain('claims session(s) 1');
    // A forced plan proceeds only with the session it was planned with.
    expect(p.steps[0]!.preconditions.find((c) => c.id === 'csi-volume-claims-only')?.value).toBe('1');
    const text = `${formatPlan(p)}${JSON.stringify(p)}`;
    expect(text).not.toContain('S3cr3t-CHAP-value');
    expect(text).not.toContain('node-user');
  });

  it('dirs that do not match kubelet’s layout → refused; block volumes → refused', () => {
    // The staging dir is not sha256 of the handle vol_data.json names.
    const bad = `${KROOT}/plugins/kubernetes.io/csi/${DRIVER}/${sha('other-handle')}`;
    const f = node({ stagingDir: bad });
    const r = plan(f, `${bad}/globalmount`).refusals;
    expect(r.map((x) => [x.id, x.overridable])).toEqual([['csi-layout', false]]);
    expect(r[0]!.reason).toContain(`is not sha256(${HANDLE})`);

    const g = nodes.root();
    mkHostDir(g.root, `${KROOT}/plugins/kubernetes.io/csi/volumeDevices/staging/pv-blk`);
    const b = plan(g, `${KROOT}/plugins/kubernetes.io/csi/volumeDevices/staging/pv-blk`);
    expect(b.refusals.map((x) => x.id)).toEqual(['csi-block']);
    expect(b.steps).toEqual([]);
  });

  it('the path guard admits exactly a CSI volume dir and its kubelet entries', () => {
    const ok = [
      STAGING_DIR,
      `${STAGING_DIR}/vol_data.json`,
      `${STAGING_DIR}/globalmount`,
      `${KROOT}/plugins/kubernetes.io/csi/pv/${PV}`,
      PUBLISH_DIR,
      `${PUBLISH_DIR}/vol_data.json`,
      `${PUBLISH_DIR}/mount`,
    ];
    const bad = [
      `${KROOT}/plugins/kubernetes.io/csi/${DRIVER}`,
      `${KROOT}/plugins/kubernetes.io/csi`,
      `${STAGING_DIR}/globalmount/data`,
      `${STAGING_DIR}/../x/vol_data.json`,
      `${KROOT}/plugins/kubernetes.io/csi/volumeDevices/staging`,
      `${KROOT}/pods/${POD}/volumes/kubernetes.io~csi`,
      `${KROOT}/pods/${POD}`,
      `${PUBLISH_DIR}/mount/file`,
      `${KROOT}/pods/${POD}/volumes/kubernetes.io~empty-dir/x`,
      '/etc/passwd',
    ];
    expect(ok.filter((p) => !isKubeletCsiVolumePath(KROOT, p))).toEqual([]);
    expect(bad.filter((p) => isKubeletCsiVolumePath(KROOT, p))).toEqual([]);
  });
});

describe('kubelet CSI dirs on --demo csi', () => {
  const GONE = 'pv-csi-gone';

  it('status says the leftover volume has no session; cleanup removes its dirs and nothing else', async () => {
    env = await nodes.sim('csi');
    const s = env.snap();
    const v = s.csi!.volumes.find((x) => x.pv === GONE)!;
    expect(v.sessions).toEqual([]);
    const pub = v.publish[0]!.path;
    const podVolumes = pub.slice(0, pub.indexOf('/kubernetes.io~csi/') + '/kubernetes.io~csi'.length);
    const { plan: p, result } = await env.run('cleanup', [v.stagingPath!]);
    expect(p.refusals).toEqual([]);
    expect(p.warnings.join('\n')).toContain('csi-driver-iscsi is running (iscsiplugin (pid 1201))');
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    for (const path of [v.stagingPath!, pub, pub.replace(/\/mount$/, '')])
      expect(env.host.lstat(path)).toBeUndefined();
    // kubelet's own dirs above the volume stay (its orphaned-pod cleanup removes them).
    expect(env.host.lstat(podVolumes)).toBe('dir');
    expect(env.snap().csi!.volumes.some((x) => x.pv === GONE)).toBe(false);
    expect(JSON.stringify(result)).not.toContain(DEMO_DRIVER_SECRET);
  });

  it('a file in the unmounted mount dir (written to the node’s disk) stops the plan; nothing is removed', async () => {
    env = await nodes.sim('csi');
    const v = env.snap().csi!.volumes.find((x) => x.pv === GONE)!;
    const pub = v.publish[0]!.path;
    env.host.sim.tree.file(`${pub}/app.log`, 'written while nothing was mounted\n');
    const { result } = await env.run('cleanup', [pub]);
    expect(result.error?.kind).toBe('refused');
    expect(result.error?.message).toContain(`${pub} still contains app.log`);
    expect(env.host.lstat(`${pub.replace(/\/mount$/, '')}/vol_data.json`)).toBe('file');
    expect(env.host.lstat(`${pub}/app.log`)).toBe('file');
  });

  it('a claimed, unmounted volume is refused; --force removes only kubelet’s dirs, the session stays', async () => {
    env = await nodes.sim('csi');
    const v = env.snap().csi!.volumes.find((x) => x.pv === 'pv-csi-queue')!;
    const p = env.plan('cleanup', [v.stagingPath!]);
    expect(p.refusals.map((r) => [r.id, r.overridable])).toEqual([['driver-claimed', true]]);
    const { result } = await env.run('cleanup', [v.stagingPath!], {}, { force: true });
    expect(result.error).toBeUndefined();
    expect(env.host.lstat(v.stagingPath!)).toBeUndefined();
    const queue = env.snap().sessions.find((x) => x.targetIqn.endsWith(':csi-queue'))!;
    // Still claimed by csi-driver-iscsi's connector file.
    expect(queue.verdict).toBe('claimed');
    expect(queue.claims?.map((c) => c.owner)).toEqual(['driver-file']);
  });

  it('a Trident tracking file naming the volume refuses it; --remove-driver-files unlinks the file after kubelet’s dirs', async () => {
    env = await nodes.sim('csi');
    // etl-job-1's volume (the csi scenario): unmounted, session 5 claimed, Trident's tracking file names it.
    const v = env.snap().csi!.volumes.find((x) => x.pv === 'pvc-00000102-1111-4222-8333-444455556666')!;
    const file = '/var/lib/trident/tracking/pvc-00000102-1111-4222-8333-444455556666.json';
    const off = env.plan('cleanup', [v.stagingPath!]);
    expect(off.refusals.map((r) => r.id)).toEqual(['driver-claimed', 'driver-claimed']);
    expect(off.refusals[1]!.reason).toContain(file);
    expect(off.refusals[1]!.hint).toContain('(--remove-driver-files removes it anyway)');
    // The planner says the option changes this plan (the console offers it as the plan's toggle).
    expect(off.changedBy).toEqual(['remove-driver-files']);
    const on = env.plan('cleanup', [v.stagingPath!], { 'remove-driver-files': true });
    expect(on.refusals.map((r) => r.id)).toEqual(['driver-claimed']);
    expect(on.refusals[0]!.reason).toContain('claims session(s) 5');
    expect(on.steps.map((x) => `${x.fs?.op} ${x.fs?.path}`).at(-1)).toBe(`unlink ${file}`);
    expect(on.steps.length).toBe(off.steps.length + 1);
    const { result } = await env.run(
      'cleanup',
      [v.stagingPath!],
      { 'remove-driver-files': true },
      { force: true },
    );
    expect(result.error).toBeUndefined();
    expect(env.host.lstat(file)).toBeUndefined();
    expect(env.host.lstat(v.stagingPath!)).toBeUndefined();
  });

  it('a path that is neither a kubelet iSCSI dir nor a CSI volume path is a clear error', async () => {
    env = await nodes.sim('csi');
    expect(() => env.plan('cleanup', ['/var/lib/kubelet/pods'])).toThrow(
      "is not a kubelet iSCSI dir or a CSI volume's staging or publish path",
    );
  });
});
