import {
  connectorFile,
  csiVolume,
  driverLogin,
  kubeletCsiDirs,
  longhornLink,
  registerDriver,
  tridentTracking,
} from '../csi-node.js';
import type { Simulator } from '../simulator.js';
import type { TargetSpec } from '../types.js';
import { PORTAL_A, PORTAL_B, podUid, target } from './lab.js';

const GiB = 1024 ** 3;
const uid = (n: number) => `${String(n).padStart(8, '0')}-1111-4222-8333-444455556666`;
const pvc = (n: number) => `pvc-${uid(n)}`;
const raw = (iqn: string, portal: string): TargetSpec => ({
  iqn,
  portals: [portal],
  luns: [{ lun: 1, sizeBytes: GiB }],
});

/** A CSI volume whose handle and PV name are `pvc-<n>` (as external-provisioner names them). */
function pvcVolume(sim: Simulator, t: TargetSpec, driver: string, n: number, pod: string, mounted: boolean) {
  return csiVolume(sim, t, {
    driver,
    handle: pvc(n),
    pv: pvc(n),
    podUid: sim.startPod(podUid(pod), pod),
    stageMounted: mounted,
    publishMounted: mounted,
  });
}

/**
 * A CSI node (formats in docs/csi-drivers.md): csi-driver-iscsi mounted, unmounted but
 * claimed (pod restarting), a leftover session whose claim is gone, and kubelet's leftover dirs of a
 * volume whose session is gone; Trident with tracking files (in use,
 * and staged for a pod that went away); Longhorn sessions to an instance-manager pod; democratic-csi
 * zombies — one still staged in kubelet's dirs, two with nothing left but the session.
 */
export async function csiScenario(sim: Simulator): Promise<void> {
  const IM = '10.42.1.15:3260'; // a Longhorn instance-manager pod's IP
  const TRUENAS = '10.0.0.20:3260';
  registerDriver(sim, 'iscsi.csi.k8s.io', {
    comm: 'iscsiplugin',
    pid: 1201,
    argv: ['/iscsiplugin', '--nodeid=sim-node-1', '--endpoint=unix:///csi/csi.sock'],
  });
  // Node plugins as each driver's manifests start them (docs/csi-drivers.md "Node-plugin processes").
  registerDriver(sim, 'csi.trident.netapp.io', {
    comm: 'trident_orchestrator',
    pid: 1301,
    argv: [
      '/trident_orchestrator',
      '--no_persistence',
      '--k8s_pod',
      '--rest=false',
      '--csi_node_name=sim-node-1',
      '--csi_endpoint=unix://plugin/csi.sock',
      '--csi_role=node',
    ],
  });
  registerDriver(sim, 'driver.longhorn.io', {
    comm: 'longhorn-manager',
    pid: 1401,
    argv: [
      'longhorn-manager',
      '-d',
      'csi',
      '--nodeid=sim-node-1',
      '--endpoint=unix:///csi/csi.sock',
      '--drivername=driver.longhorn.io',
      '--manager-url=http://longhorn-backend:9500/v1',
    ],
  });
  registerDriver(sim, 'org.democratic-csi.iscsi', {
    comm: 'node',
    pid: 1501,
    argv: [
      'node',
      '--expose-gc',
      'bin/democratic-csi',
      '--csi-version=1.5.0',
      '--csi-name=org.democratic-csi.iscsi',
      '--driver-config-file=/config/driver-config-file.yaml',
      '--log-level=info',
      '--csi-mode=node',
      '--server-socket=/csi-data/csi.sock',
    ],
  });

  // csi-driver-iscsi: no NodeStage, NodePublish logs in and mounts at the publish path.
  for (const [name, mounted] of [
    ['csi-web', true],
    ['csi-queue', false],
  ] as const) {
    const t = target(name, [PORTAL_A], [5]);
    const o = await csiVolume(sim, t, {
      driver: 'iscsi.csi.k8s.io',
      handle: `${name}-handle`,
      pv: `pv-${name}`,
      podUid: sim.startPod(podUid(`${name}-0`), `${name}-0`),
      publishMounted: mounted,
    });
    connectorFile(sim, t, `${name}-handle`, o.sd);
  }
  await driverLogin(sim, target('csi-leftover', [PORTAL_A], [5]));
  // kubelet's dirs of a volume whose session is gone (a failed NodeUnpublish, then a kubelet restart).
  kubeletCsiDirs(sim, {
    driver: 'iscsi.csi.k8s.io',
    handle: 'csi-gone-handle',
    pv: 'pv-csi-gone',
    podUid: podUid('csi-gone-0'),
  });

  // Trident (ONTAP target names): staged and published; staged for a pod that went away.
  const ontap = (n: number) =>
    raw(`iqn.1992-08.com.netapp:sn.0f3ad1c2${n}e811ea9d3a00a098d6d2b1:vs.7`, PORTAL_B);
  const tr1 = ontap(1);
  const a = await pvcVolume(sim, tr1, 'csi.trident.netapp.io', 101, 'mysql-0', true);
  tridentTracking(sim, tr1, pvc(101), a);
  const tr2 = ontap(2);
  const b = await pvcVolume(sim, tr2, 'csi.trident.netapp.io', 102, 'etl-job-1', false);
  tridentTracking(sim, tr2, pvc(102), b);

  // Longhorn v1: tgt in the instance-manager pod, device link under /dev/longhorn.
  const lh1 = raw(`iqn.2019-10.io.longhorn:${pvc(201)}`, IM);
  const c = await pvcVolume(sim, lh1, 'driver.longhorn.io', 201, 'gitea-0', true);
  longhornLink(sim, pvc(201), c.sd);
  const lh2sd = await driverLogin(sim, raw(`iqn.2019-10.io.longhorn:${pvc(202)}`, IM));
  longhornLink(sim, pvc(202), lh2sd);

  // democratic-csi on TrueNAS: target names carry the PV name; zombies after failed NodeUnstage.
  const freenas = (n: number) => raw(`iqn.2005-10.org.freenas.ctl:csi-${pvc(n)}-cluster`, TRUENAS);
  await pvcVolume(sim, freenas(301), 'org.democratic-csi.iscsi', 301, 'redis-0', true);
  await pvcVolume(sim, freenas(302), 'org.democratic-csi.iscsi', 302, 'redis-1', false);
  await driverLogin(sim, freenas(303));
  await driverLogin(sim, freenas(304));
}
