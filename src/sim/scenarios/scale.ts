import { kernelLunFromTgt, portalOf } from '../kernel/names.js';
import type { Simulator } from '../simulator.js';
import { podUid, target } from './lab.js';

/** Sessions and LUNs of the scale scenario (bench/README.md's floor: 1,000 sessions × 4 LUNs). */
const SCALE_SESSIONS = 1000;
/** The array's two controllers (multipath targets use both) and a third array that is down. */
const PORTALS = ['10.0.1.10:3260', '10.0.1.11:3260'];
const PORTAL_DOWN = '10.0.1.12:3260';

/**
 * The few that are wrong among the 1,000, by single-path target index (the rest are in use):
 * an outage (the third array, 8 sessions), stale sessions (pod gone, logout never happened), an
 * orphaned kubelet dir, a failed path under a multipath map (degraded), a session stuck FAILED
 * while its portal answers (failed).
 */
const OUTAGE = 8;
const STALE = [17, 211, 402];
const ORPHANED = [333];
const DEGRADED_MP = [42, 199];
const FAILED_SP = [123];

/**
 * 1,000 sessions × 4 LUNs, half of them multipath (250 targets on two portals), the rest single
 * path: a node mid-incident as a large fleet node looks. Logged in the way kubelet does it
 * (node.session.scan=manual, then a targeted scan per LUN), so there is no LUN 0 device;
 * materialised straight through the kernel model for speed. Then kubelet mounts each target's
 * LUN 1 for one pod (its sessions are found logged in, so no login runs) — except the few above.
 */
export async function scale(sim: Simulator): Promise<void> {
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
  const mp: string[] = [];
  const sp: { iqn: string; portal: string }[] = [];
  for (let i = 0; i < mpTargets; i++) {
    const t = sim.addTarget(target(`scale-mp-${String(i).padStart(4, '0')}`, PORTALS, [1, 1, 1, 1]));
    for (const p of PORTALS) login(t.iqn, p);
    mp.push(t.iqn);
  }
  for (let i = 0; i < spTargets; i++) {
    const portal = i < OUTAGE ? PORTAL_DOWN : PORTALS[i % 2]!;
    const t = sim.addTarget(target(`scale-sp-${String(i).padStart(4, '0')}`, [portal], [1, 1, 1, 1]));
    login(t.iqn, portal);
    sp.push({ iqn: t.iqn, portal });
  }
  sim.kernel.deferMultipath = false;
  sim.kernel.reconcileMultipath();
  await kubeletVolumes(sim, mp, sp);
  breakSome(sim, mp, sp);
}

/**
 * kubelet's volume for LUN 1 of each target, one pod each (namespace by kind, as a fleet names
 * them): MountDevice and SetUp on the device kubelet would find (the map of a multipath target,
 * else the disk), with /proc's mount files written once at the end.
 */
async function kubeletVolumes(sim: Simulator, mp: string[], sp: { iqn: string; portal: string }[]) {
  const lun1 = new Map<string, string>();
  for (const [sd, { session, device }] of sim.kernel.sdDevices())
    if (device.lun === 1 && !lun1.has(session.iqn)) lun1.set(session.iqn, sd);
  const mapOf = new Map<string, string>();
  for (const [n, m] of sim.kernel.maps) for (const sd of m.slaves) mapOf.set(sd, `dm-${n}`);
  const mount = async (iqn: string, portals: string[], ns: string, orphan = false) => {
    const name = iqn.split(':').pop()!;
    const sd = lun1.get(iqn)!;
    const o = {
      portals,
      iqn,
      lun: 1,
      volName: `pv-${name}`,
      podUIDs: [sim.startPod(podUid(name), `${name}-0`, ns)],
    };
    const v = await sim.kubelet.mountLoggedIn(o, `/dev/${mapOf.get(sd) ?? sd}`);
    // kubelet crashed after unmounting: the global dir and iscsi.json stay, no pod, no mount.
    if (orphan) await sim.kubelet.crashAfterUnmount(v.globalPath);
  };
  sim.deferMountWrites = true;
  try {
    for (const iqn of mp) await mount(iqn, PORTALS, 'databases');
    for (const [i, t] of sp.entries())
      if (!STALE.includes(i)) await mount(t.iqn, [t.portal], 'apps', ORPHANED.includes(i));
  } finally {
    sim.deferMountWrites = false;
    sim.mountsChanged();
  }
}

/**
 * The faults: LUN 1's path through the second controller of two maps (degraded), one session
 * stuck FAILED while its portal answers (failed), and the third array down (an outage).
 */
function breakSome(sim: Simulator, mp: string[], sp: { iqn: string; portal: string }[]) {
  const sessionOf = (iqn: string, portal: string) => {
    const p = portalOf(portal);
    return sim.kernel.findSessions((x) => x.iqn === iqn && x.portal.address === p.address)[0]!;
  };
  for (const i of DEGRADED_MP) {
    const s = sessionOf(mp[i]!, PORTALS[1]!);
    const lun1 = [...sim.kernel.sdDevices()].find(([, v]) => v.session === s && v.device.lun === 1);
    if (lun1) sim.pathFail(lun1[0]);
  }
  for (const i of FAILED_SP) sim.sessionStuck(sessionOf(sp[i]!.iqn, sp[i]!.portal).sid);
  sim.portalDown(PORTAL_DOWN);
}
