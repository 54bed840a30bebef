/**
 * Two of a session's verdict questions (docs/status-schema.md, verdicts), each answered with the
 * reasons that decide it: is a device used outside kubelet (foreign?), and does kubelet or a pod use
 * it (in use?). A device counts with its partitions and dm holders (usage.ts).
 */
import type { KubeletVolume, PodName } from '../model.js';
import { podLabel } from '../text/pod-names.js';
import type { SysfsSession } from './sessions.js';
import type { DeviceUse } from './usage.js';
import type { VerdictIndex } from './verdict-index.js';

type PodNames = Readonly<Record<string, PodName>> | undefined;
type Uses = ReadonlyMap<string, DeviceUse[]>;

function describeUse(u: DeviceUse, dev: string, podNames: PodNames): string {
  const chain = u.via === dev ? dev : u.via;
  if (u.kind === 'swap') return `${chain} is swap (${u.where})`;
  if (u.kind === 'loop') return `${chain} is held by ${u.where} (backing file ${u.backingFile})`;
  if (u.kind === 'block-bind')
    return u.kubelet
      ? `${chain}'s device node is bound at ${u.where} (kubelet block volume${u.podUid ? `, pod ${podLabel(podNames, u.podUid)}` : ''})`
      : `${chain}'s device node is bind-mounted at ${u.where}`;
  return `${chain} is mounted at ${u.where}`;
}

/** Why a use is outside kubelet, or undefined for kubelet's own use. */
function foreignWhy(u: DeviceUse): string | undefined {
  if (u.kind === 'swap' || ((u.kind === 'mount' || u.kind === 'block-bind') && !u.kubelet))
    return 'outside the kubelet root';
  return u.kubelet ? undefined : 'not a kubelet block volume';
}

/** Visits each use of the session's devices, in device order. */
function eachUse(s: SysfsSession, uses: Uses, visit: (u: DeviceUse, dev: string) => void): void {
  for (const d of s.devices) {
    if (!d.name) continue;
    const us = uses.get(d.name);
    if (us) for (const u of us) visit(u, d.name);
  }
}

/** Foreign? The uses outside kubelet: a mount outside its root, swap, a loop or bind it did not make. */
export function foreignUses(s: SysfsSession, uses: Uses, podNames: PodNames): string[] {
  const out: string[] = [];
  eachUse(s, uses, (u, dev) => {
    const why = foreignWhy(u);
    if (why) out.push(`${describeUse(u, dev, podNames)} (${why})`);
  });
  return out;
}

/**
 * In use by kubelet? Its mounts and block binds of the devices, and loop devices backed by a file
 * under its plugin dir that name a LUN of this target.
 */
export function kubeletUses(s: SysfsSession, uses: Uses, idx: VerdictIndex, podNames: PodNames): string[] {
  const out: string[] = [];
  eachUse(s, uses, (u, dev) => {
    if (foreignWhy(u) === undefined) out.push(describeUse(u, dev, podNames));
  });
  for (const l of idx.loopsByRef.list(s.portal, s.targetIqn) ?? [])
    out.push(`${l.loop} is backed by ${l.backingFile} (LUN ${l.lun} of this target)`);
  return out;
}

/** In use by a pod? The pods whose volume dirs refer to one of the session's kubelet volumes. */
export function podUsers(
  vols: readonly KubeletVolume[],
  idx: VerdictIndex,
  podNames: PodNames,
): { pods: string[]; reasons: string[] } {
  const pods: string[] = [];
  const reasons: string[] = [];
  for (const v of vols) {
    for (const pv of idx.podsByGlobal.get(v.path) ?? []) {
      if (!pods.includes(pv.podUid)) pods.push(pv.podUid);
      reasons.push(`pod ${podLabel(podNames, pv.podUid)} volume ${pv.volName} refers to ${v.path}`);
    }
  }
  return { pods, reasons };
}
