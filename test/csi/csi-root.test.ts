/**
 * CSI drivers on --root trees: the single-session capture (session 1, IQN1 @ P1, sda/sdb)
 * laid out as each driver leaves a node (docs/csi-drivers.md): claimed-and-mounted → in-use,
 * claimed-and-unmounted → claimed (never stale) and cleanup refused, claim gone → stale with the
 * driver named. CHAP values in the driver files never appear in any output.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/commands/status-text.js';
import { formatPlan } from '../../src/engine/actions/format.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { mkHostDir } from '../helpers/materialize-sysfs.js';
import { FixtureRoot, IQN1, KROOT, P1 } from '../snapshot/fixture-root.js';
import { rootCleanupPlan } from './helpers.js';

const SECRET = 'S3cr3t-CHAP-value';
const SECRET_IN = 'Mutual-S3cr3t';
const PV = 'pv-data-1';
const HANDLE = 'vol-0001';
const POD = '5f6e7d8c-0000-4000-8000-000000000001';
const sha = (h: string) => createHash('sha256').update(h).digest('hex');

const fixtures: FixtureRoot[] = [];
function node(): FixtureRoot {
  const f = new FixtureRoot('single-sysfs.json');
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

const stagingDir = (driver: string, handle = HANDLE) =>
  `${KROOT}/plugins/kubernetes.io/csi/${driver}/${sha(handle)}`;
const publishDir = (pv = PV, pod = POD) => `${KROOT}/pods/${pod}/volumes/kubernetes.io~csi/${pv}`;

/** kubelet's CSI dirs for one volume: staging vol_data.json + globalmount, publish vol_data.json + mount. */
function csiVolume(
  f: FixtureRoot,
  driver: string,
  handle = HANDLE,
  pv = PV,
): { staging: string; publish: string } {
  const st = stagingDir(driver, handle);
  f.write(`${st}/vol_data.json`, `${JSON.stringify({ driverName: driver, volumeHandle: handle })}\n`);
  mkHostDir(f.root, `${st}/globalmount`);
  const pd = publishDir(pv);
  f.write(
    `${pd}/vol_data.json`,
    `${JSON.stringify({
      specVolID: pv,
      volumeHandle: handle,
      driverName: driver,
      nodeName: 'node-a',
      attachmentID: `csi-${sha(`${handle}${driver}node-a`)}`,
      volumeLifecycleMode: 'Persistent',
    })}\n`,
  );
  mkHostDir(f.root, `${pd}/mount`);
  return { staging: `${st}/globalmount`, publish: `${pd}/mount` };
}

/** csi-lib-iscsi's persisted Connector (2021-10 and later field names), with CHAP in plain text. */
function connector(
  f: FixtureRoot,
  handle = HANDLE,
  layout: 'current' | 'targets' | 'portals' = 'current',
): string {
  const path = `/var/run/iscsi.csi.k8s.io/iscsi-${handle}.json`;
  const base = {
    volume_name: handle,
    lun: 1,
    auth_type: 'chap',
    discovery_secrets: { userName: 'disc-user', password: SECRET },
    session_secrets: {
      secretsType: 'chap',
      userName: 'node-user',
      password: SECRET,
      userNameIn: 'tgt',
      passwordIn: SECRET_IN,
    },
    interface: 'default',
    mount_target_device: { name: 'sda', hctl: '0:0:0:1', children: null, type: 'disk', tran: 'iscsi' },
    devices: [{ name: 'sda', hctl: '0:0:0:1', children: null, type: 'disk', tran: 'iscsi' }],
    retry_count: 10,
    check_interval: 1,
    do_discovery: true,
    do_chap_discovery: false,
  };
  const target =
    layout === 'current'
      ? { target_iqn: IQN1, target_portal: [P1] }
      : layout === 'portals'
        ? { target_iqn: IQN1, target_portals: [P1] }
        : { targets: [{ iqn: IQN1, portal: '127.0.0.1', port: '3260' }] };
  f.write(path, `${JSON.stringify({ ...base, ...target })}\n`);
  return path;
}

const MOUNT_SDA = (at: string) => `40 22 8:0 / ${at} rw,relatime shared:30 - ext4 /dev/sda rw`;

function cleanupPlan(f: FixtureRoot, options: Record<string, unknown> = {}) {
  return rootCleanupPlan(f, '1', options);
}

function expectNoSecret(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(SECRET);
    expect(t).not.toContain(SECRET_IN);
    expect(t).not.toContain('node-user');
  }
}

describe('csi-driver-iscsi on a --root tree', () => {
  it('claimed and mounted (NodePublish mounted sda at the publish path) → in-use, the CSI volume and pod named', () => {
    const f = node();
    const { publish } = csiVolume(f, 'iscsi.csi.k8s.io');
    connector(f);
    f.mountinfo([MOUNT_SDA(publish)]);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    const s = snap.sessions[0]!;
    expect(s.verdict).toBe('in-use');
    expect(s.pods).toContain(POD);
    expect(s.claims?.map((c) => [c.owner, c.driver, c.pv, c.volumeHandle])).toEqual([
      ['csi', 'iscsi.csi.k8s.io', PV, HANDLE],
      ['driver-file', 'iscsi.csi.k8s.io', PV, HANDLE],
    ]);
    const vol = snap.csi!.volumes.find((v) => v.volumeHandle === HANDLE)!;
    expect(vol).toMatchObject({ driver: 'iscsi.csi.k8s.io', pv: PV, stagingMounted: false, sessions: [1] });
    expect(vol.publish).toEqual([{ podUid: POD, path: publish, mounted: true }]);
    expect(snap.csi!.driverFiles[0]).toMatchObject({
      targetIqn: IQN1,
      portals: [P1],
      lun: 1,
      devices: ['sda'],
      chap: true,
    });
    expectNoSecret(
      JSON.stringify(snap),
      formatStatus(snap, (t) => t),
    );
  });

  it('claimed and unmounted (pod restarting) → claimed, never stale; cleanup refused (overridable)', () => {
    const f = node();
    csiVolume(f, 'iscsi.csi.k8s.io');
    const conn = connector(f);
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.verdict).toBe('claimed');
    expect(s.reasons[0]).toBe(
      `claimed by csi-driver-iscsi volume ${PV}, not mounted: NodeStage/NodeUnstage in flight or a driver leftover`,
    );
    const plan = cleanupPlan(f);
    const r = plan.refusals.find((x) => x.id === 'driver-claimed')!;
    expect(r.overridable).toBe(true);
    expect(r.reason).toContain("csi-driver-iscsi's node plugin is not running");
    // With the driver not running, a forced cleanup also unlinks its connector — one file, after logout.
    const unlink = plan.steps.find((x) => x.fs?.op === 'unlink');
    expect(unlink?.fs?.path).toBe(conn);
    expect(plan.steps.findIndex((x) => x.fs?.op === 'unlink')).toBeGreaterThan(
      plan.steps.findIndex((x) => x.argv?.includes('--logout')),
    );
    expect(plan.steps.some((x) => x.fs?.op === 'rmdir' && x.fs.path.includes('kubernetes.io/csi'))).toBe(
      false,
    );
    expectNoSecret(JSON.stringify(plan), formatPlan(plan));
  });

  it('the connector alone claims the session (every csi-lib-iscsi field layout)', () => {
    for (const layout of ['current', 'targets', 'portals'] as const) {
      const f = node();
      connector(f, HANDLE, layout);
      const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
      expect([layout, s.verdict, s.claims?.[0]?.owner]).toEqual([layout, 'claimed', 'driver-file']);
    }
  });

  it('while the driver runs, its connector is kept unless the admin asks', () => {
    const f = node();
    const conn = connector(f);
    f.write(`${KROOT}/plugins_registry/iscsi.csi.k8s.io-reg.sock`, '');
    f.write('/proc/812/comm', 'iscsiplugin\n');
    f.write('/proc/812/cmdline', '/iscsiplugin\0--nodeid=node-a\0');
    const plan = cleanupPlan(f);
    expect(plan.refusals.find((x) => x.id === 'driver-claimed')!.reason).toContain(
      'csi-driver-iscsi is running (iscsiplugin (pid 812)) and may still act on this',
    );
    expect(plan.steps.some((x) => x.fs?.path === conn)).toBe(false);
    expect(plan.warnings.join('\n')).toContain(`${conn} is kept`);
    const asked = cleanupPlan(f, { 'remove-driver-files': true });
    expect(asked.steps.some((x) => x.fs?.op === 'unlink' && x.fs.path === conn)).toBe(true);
  });

  it('claim gone (no vol_data.json, no connector, no mount) → stale, the registered driver named', () => {
    const f = node();
    f.write(`${KROOT}/plugins_registry/iscsi.csi.k8s.io-reg.sock`, '');
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.verdict).toBe('stale');
    expect(s.reasons.join('\n')).toContain(
      'created by csi-driver-iscsi (the only iSCSI CSI driver registered on this node); its claim is gone',
    );
    expect(cleanupPlan(f).refusals.filter((x) => x.id === 'driver-claimed')).toEqual([]);
  });
});

describe('Trident on a --root tree', () => {
  function tracking(f: FixtureRoot, staging: string, published: string[]): string {
    const path = `/var/lib/trident/tracking/${HANDLE}.json`;
    f.write(
      path,
      JSON.stringify({
        iscsiTargetPortal: '127.0.0.1',
        iscsiPortals: [],
        iscsiTargetIqn: IQN1,
        iscsiLunNumber: 1,
        iscsiInterface: 'default',
        iscsiIgroup: 'trident-node-a',
        useCHAP: true,
        iscsiUsername: 'node-user',
        iscsiInitiatorSecret: SECRET,
        iscsiTargetUsername: 'tgt',
        iscsiTargetSecret: SECRET_IN,
        devicePath: '/dev/sda',
        fstype: 'ext4',
        SANType: 'iscsi',
        stagingTargetPath: staging,
        publishedTargetPaths: Object.fromEntries(published.map((p) => [p, {}])),
      }),
    );
    return path;
  }

  it('mounted staging → in-use; unmounted with a tracking file → claimed; claim gone → stale', () => {
    const f = node();
    const { staging, publish } = csiVolume(f, 'csi.trident.netapp.io');
    tracking(f, staging, [publish]);
    f.mountinfo([MOUNT_SDA(staging), MOUNT_SDA(publish)]);
    let snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('in-use');
    expect(snap.sessions[0]!.claims?.[0]).toMatchObject({
      driver: 'csi.trident.netapp.io',
      pv: PV,
      mounted: true,
    });
    expectNoSecret(
      JSON.stringify(snap),
      formatStatus(snap, (t) => t),
    );

    f.mountinfo([]);
    snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('claimed');
    expect(snap.sessions[0]!.reasons[0]).toContain('claimed by Trident volume');
    expect(snap.csi!.driverFiles[0]).toMatchObject({
      kind: 'trident tracking file',
      portals: ['127.0.0.1'],
      chap: true,
    });
    expectNoSecret(
      JSON.stringify(snap),
      formatStatus(snap, (t) => t),
      JSON.stringify(cleanupPlan(f)),
    );
  });

  it('older Trident: volumePublishInfo.json in the staging dir claims the session', () => {
    const f = node();
    const { staging } = csiVolume(f, 'csi.trident.netapp.io');
    f.write(
      `${staging.replace(/\/globalmount$/, '')}/volumePublishInfo.json`,
      JSON.stringify({
        iscsiTargetPortal: P1,
        iscsiTargetIqn: IQN1,
        iscsiLunNumber: 1,
        useCHAP: true,
        iscsiTargetSecret: SECRET,
      }),
    );
    // kubelet's dirs gone but the driver's file remains: still the driver's.
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('claimed');
    expect(snap.csi!.driverFiles[0]).toMatchObject({
      kind: 'trident volumePublishInfo.json',
      stagingPath: staging,
    });
    expectNoSecret(
      JSON.stringify(snap),
      formatStatus(snap, (t) => t),
    );
  });
});

describe('democratic-csi (no driver file) on a --root tree', () => {
  // democratic-csi names targets after the volume: the capture's target ends in `storage.target1`.
  const DRIVER = 'org.democratic-csi.iscsi';
  const H = 'storage.target1';

  it('staging mounted → in-use; staging dir left unmounted (a zombie) → claimed; dirs gone → stale', () => {
    const f = node();
    const { staging } = csiVolume(f, DRIVER, H, 'pvc-x');
    f.mountinfo([MOUNT_SDA(staging)]);
    expect(takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!.verdict).toBe('in-use');

    f.mountinfo([]);
    const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
    expect(s.verdict).toBe('claimed');
    expect(s.reasons[0]).toBe(
      `claimed by democratic-csi (${DRIVER}) volume pvc-x, not mounted: NodeStage/NodeUnstage in flight or a driver leftover`,
    );
    expect(cleanupPlan(f).refusals.map((r) => r.id)).toContain('driver-claimed');

    const g = node();
    const snap = takeSnapshot(g.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('stale');
    expect(snap.csi).toBeUndefined();
  });
});

describe('bad driver and kubelet files', () => {
  it('too large, not JSON, wrong types, control characters: problems, never a crash or a claim', () => {
    const f = node();
    f.write('/var/run/iscsi.csi.k8s.io/iscsi-a.json', 'x'.repeat(70 * 1024));
    f.write('/var/run/iscsi.csi.k8s.io/iscsi-b.json', `{"target_iqn": "${SECRET}`);
    f.write('/var/run/iscsi.csi.k8s.io/iscsi-c.json', JSON.stringify({ target_iqn: 42, target_portal: 'x' }));
    f.write(
      '/var/run/iscsi.csi.k8s.io/iscsi-d.json',
      JSON.stringify({ target_iqn: `${IQN1}\u001b[2J`, target_portal: [P1] }),
    );
    f.write(`${stagingDir('x.csi')}/vol_data.json`, '[1,2]');
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('stale');
    const text = snap.problems.join('\n');
    expect(text).toContain('iscsi-a.json is larger than 65536 bytes');
    expect(text).toContain('iscsi-b.json is not valid JSON');
    expect(text).toContain('iscsi-c.json names no target');
    expect(text).toContain('vol_data.json is not a JSON object');
    expectNoSecret(
      JSON.stringify(snap),
      formatStatus(snap, (t) => t),
    );
  });
});
