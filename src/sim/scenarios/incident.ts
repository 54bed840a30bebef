import type { Simulator } from '../simulator.js';
import { foreignMount, PORTAL_A, PORTAL_B, PORTAL_C, target, volume } from './lab.js';

/**
 * The default demo: what a node looks like the morning after. In-use volumes; a stale session
 * (pod deleted, kubelet dirs removed, logout never happened); an orphaned kubelet global dir;
 * a foreign mount at /mnt/backup; a degraded multipath map; a session whose target is down; and
 * node.startup=automatic records (the foreign login used iscsid.conf's default).
 */
export async function incident(sim: Simulator): Promise<void> {
  await volume(sim, target('postgres-data', [PORTAL_A], [20]), 'postgres-0', { namespace: 'db' });
  const mp = await volume(sim, target('kafka-data', [PORTAL_A, PORTAL_B], [50]), 'kafka-0', {
    namespace: 'streaming',
  });
  // One path of the multipath map fails: the map keeps serving I/O through the other (degraded).
  const dm = mp.devicePath.split('/').pop()!;
  const slave = sim.tree.list(`/sys/block/${dm}/slaves`).sort().at(-1);
  if (slave) sim.pathFail(slave);

  const stale = await volume(sim, target('old-logs', [PORTAL_A], [10]), 'logs-collector-7f9c', {
    namespace: 'logging',
  });
  await sim.kubelet.detachLeavingSession(stale.globalPath);

  const orphan = await volume(sim, target('grafana-data', [PORTAL_B], [5]), 'grafana-0', {
    namespace: 'monitoring',
  });
  await sim.kubelet.crashAfterUnmount(orphan.globalPath);

  await foreignMount(sim, target('nightly-backup', [PORTAL_B], [100]), '/mnt/backup');

  await volume(sim, target('metrics-tsdb', [PORTAL_C], [30]), 'prometheus-0', { namespace: 'monitoring' });
  sim.portalDown(PORTAL_C);
}
