/**
 * The CSI readers against files the real writers wrote (test/fixtures/csi-artifacts/README.md says
 * which code wrote each): csi-lib-iscsi's connector in its three historical layouts, Trident's
 * tracking file, kubelet's vol_data.json as saveVolumeData encodes it and as kubelet's own test
 * spells it. The expected identities are the artifacts' own contents, typed here, never the readers'
 * output; the CHAP values planted in them never come out.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/commands/status-text.js';
import { formatPlan } from '../../src/engine/actions/format.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { mkHostDir } from '../helpers/materialize-sysfs.js';
import { FixtureRoot, KROOT } from '../snapshot/fixture-root.js';
import { rootCleanupPlan } from './helpers.js';

const ARTIFACTS = join(import.meta.dirname, '../fixtures/csi-artifacts');
const artifact = (name: string) => readFileSync(join(ARTIFACTS, name), 'utf8');

// The values written into the artifacts (see the README's table), typed here independently.
const IQN = 'iqn.2024-01.lab.example:storage.target1';
const HANDLE = 'vol-0001';
const PV = 'pv-data-1';
const POD = '5f6e7d8c-0000-4000-8000-000000000001';
const PLANTED = ['S3cr3t-CHAP-value', 'Mutual-S3cr3t', 'node-user', 'disc-user'];
const CONNECTOR = `/var/run/iscsi.csi.k8s.io/iscsi-${HANDLE}.json`;
const sha = (h: string) => createHash('sha256').update(h).digest('hex');
const staging = (driver: string, handle = HANDLE) =>
  `${KROOT}/plugins/kubernetes.io/csi/${driver}/${sha(handle)}`;
const publish = `${KROOT}/pods/${POD}/volumes/kubernetes.io~csi/${PV}`;
const mountSda = (at: string) => `40 22 8:0 / ${at} rw,relatime shared:30 - ext4 /dev/sda rw`;

const fixtures: FixtureRoot[] = [];
function node(): FixtureRoot {
  const f = new FixtureRoot('single-sysfs.json');
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

/** kubelet's staging and publish dirs for one volume, each vol_data.json as kubelet encoded it. */
function kubeletDirs(f: FixtureRoot, driver: string): void {
  f.write(`${staging(driver)}/vol_data.json`, artifact(`vol_data.staging.${driver}.json`));
  mkHostDir(f.root, `${staging(driver)}/globalmount`);
  f.write(`${publish}/vol_data.json`, artifact(`vol_data.publish.${driver}.json`));
  mkHostDir(f.root, `${publish}/mount`);
}

function expectNothingPlanted(...texts: string[]): void {
  for (const t of texts) for (const p of PLANTED) expect(t).not.toContain(p);
}

describe('csi-lib-iscsi connector files, as Persist wrote them', () => {
  const layouts = [
    ['csi-lib-iscsi-646e27f.iscsi-vol-0001.json', ['127.0.0.1:3260'], ['sda']],
    ['csi-lib-iscsi-3b8158a.iscsi-vol-0001.json', ['127.0.0.1:3260'], []],
    ['csi-lib-iscsi-0fd8753.iscsi-vol-0001.json', ['127.0.0.1:3260'], []],
  ] as const;

  for (const [file, portals, devices] of layouts) {
    it(`${file}: claims session 1 with its target, portal and LUN; no CHAP value anywhere`, () => {
      const f = node();
      kubeletDirs(f, 'iscsi.csi.k8s.io');
      f.write(CONNECTOR, artifact(file));
      f.mountinfo([mountSda(`${publish}/mount`)]);
      const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
      const s = snap.sessions[0]!;
      expect([s.verdict, s.pods]).toEqual(['in-use', [POD]]);
      expect(s.claims?.map((c) => [c.owner, c.driver, c.volumeHandle])).toContainEqual([
        'driver-file',
        'iscsi.csi.k8s.io',
        HANDLE,
      ]);
      expect(snap.csi!.driverFiles[0]).toMatchObject({ targetIqn: IQN, portals, lun: 1, chap: true });
      expect(snap.csi!.driverFiles[0]!.devices ?? []).toEqual(devices);
      expectNothingPlanted(
        JSON.stringify(snap),
        formatStatus(snap, (t) => t),
      );
    });
  }

  it('the connector alone (pod gone, kubelet dirs removed) still claims the session: never stale', () => {
    for (const [file] of layouts) {
      const f = node();
      f.write(CONNECTOR, artifact(file));
      const s = takeSnapshot(f.host(), { kubeletRoot: KROOT }).sessions[0]!;
      expect([file, s.verdict, s.claims?.[0]?.owner]).toEqual([file, 'claimed', 'driver-file']);
      const plan = rootCleanupPlan(f, '1');
      expect(plan.refusals.map((r) => r.id)).toContain('driver-claimed');
      expectNothingPlanted(JSON.stringify(plan), formatPlan(plan));
    }
  });
});

describe("Trident's tracking file, as WriteTrackingInfo encodes VolumeTrackingInfo", () => {
  it('mounted staging → in-use; unmounted → claimed by the Trident volume; no CHAP value anywhere', () => {
    const f = node();
    kubeletDirs(f, 'csi.trident.netapp.io');
    f.write(`/var/lib/trident/tracking/${HANDLE}.json`, artifact('trident-71dd716.tracking-vol-0001.json'));
    f.mountinfo([mountSda(`${staging('csi.trident.netapp.io')}/globalmount`), mountSda(`${publish}/mount`)]);
    let snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('in-use');
    expect(snap.sessions[0]!.claims?.[0]).toMatchObject({ driver: 'csi.trident.netapp.io', pv: PV });
    expect(snap.csi!.driverFiles[0]).toMatchObject({
      kind: 'trident tracking file',
      targetIqn: IQN,
      portals: ['127.0.0.1'],
      lun: 1,
      chap: true,
    });
    expectNothingPlanted(
      JSON.stringify(snap),
      formatStatus(snap, (t) => t),
    );

    f.mountinfo([]);
    snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions[0]!.verdict).toBe('claimed');
    expectNothingPlanted(JSON.stringify(snap), JSON.stringify(rootCleanupPlan(f, '1')));
  });
});

describe("kubelet's vol_data.json", () => {
  it('as saveVolumeData encodes it: the volume, its driver, PV and pod come from the files', () => {
    const f = node();
    kubeletDirs(f, 'iscsi.csi.k8s.io');
    const vol = takeSnapshot(f.host(), { kubeletRoot: KROOT }).csi!.volumes.find(
      (v) => v.volumeHandle === HANDLE,
    );
    expect(vol).toMatchObject({ driver: 'iscsi.csi.k8s.io', pv: PV });
    expect(vol!.publish.map((p) => p.podUid)).toEqual([POD]);
  });

  it("as kubelet's own attacher test spells it (spaces, no newline, a handle with '/')", () => {
    const f = node();
    const handle = 'project/zone/test-vol1';
    f.write(
      `${staging('csi', handle)}/vol_data.json`,
      artifact('kubernetes-csi_attacher_test.vol_data.json'),
    );
    mkHostDir(f.root, `${staging('csi', handle)}/globalmount`);
    const vol = takeSnapshot(f.host(), { kubeletRoot: KROOT }).csi!.volumes.find(
      (v) => v.volumeHandle === handle,
    );
    expect(vol).toMatchObject({ driver: 'csi', stagingMounted: false });
  });
});
