import { kernelLunFromTgt, portalOf } from '../kernel/names.js';
import type { Simulator } from '../simulator.js';
import { target } from './lab.js';

/** Sessions and LUNs of the scale scenario (bench/README.md's floor: 1,000 sessions × 4 LUNs). */
const SCALE_SESSIONS = 1000;

/**
 * 1,000 sessions × 4 LUNs, half of them multipath (250 targets on two portals), the rest single
 * path. Logged in the way kubelet does it (node.session.scan=manual, then a targeted scan per LUN),
 * so there is no LUN 0 device; materialised straight through the kernel model for speed.
 */
export async function scale(sim: Simulator): Promise<void> {
  const portals = ['10.0.1.10:3260', '10.0.1.11:3260'];
  const mpTargets = SCALE_SESSIONS / 4;
  const spTargets = SCALE_SESSIONS / 2;
  sim.kernel.deferMultipath = true;
  const login = (iqn: string, portal: string) => {
    const spec = sim.san.find(iqn)!;
    const p = portalOf(portal);
    sim.db.newNode(iqn, p, 1, 'default', p).rec.set('node.startup', 'manual');
    const s = sim.kernel.login({
      iqn,
      portal: p,
      tpgt: 1,
      iface: 'default',
      initiatorName: sim.db.initiatorName,
      recoveryTmo: 120,
      scan: 'manual',
      luns: spec.luns,
      tid: sim.san.tid(iqn),
    });
    for (const l of spec.luns) sim.kernel.scanSession(s, kernelLunFromTgt(l.lun));
  };
  for (let i = 0; i < mpTargets; i++) {
    const t = sim.addTarget(target(`scale-mp-${String(i).padStart(4, '0')}`, portals, [1, 1, 1, 1]));
    for (const p of portals) login(t.iqn, p);
  }
  for (let i = 0; i < spTargets; i++) {
    const t = sim.addTarget(
      target(`scale-sp-${String(i).padStart(4, '0')}`, [portals[i % 2]!], [1, 1, 1, 1]),
    );
    login(t.iqn, t.portals[0]!);
  }
  sim.kernel.deferMultipath = false;
  sim.kernel.reconcileMultipath();
}
