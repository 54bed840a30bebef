/**
 * kubelet's own answer beside ours: isSessionBusy with Portals[0] of each volume referring to the
 * session (and the session's own portal, as a PV naming it would), counted over both plugin trees
 * (docs/kubelet-iscsi.md), and where that answer and the verdict disagree.
 */
import type { KubeletVolume, Verdict } from '../model.js';
import type { SysfsSession } from './sessions.js';
import type { VerdictIndex } from './verdict-index.js';

export function kubeletAnswer(
  s: SysfsSession,
  vols: readonly KubeletVolume[],
  verdict: Verdict,
  idx: VerdictIndex,
): { kubeletBusy: boolean; kubeletDisagreement?: string } {
  let count = 0;
  if (s.portal !== '') count = idx.volCount(s.portal, s.targetIqn);
  for (let i = 0; i < vols.length; i++) {
    const p = vols[i]!.portal;
    if (p === '' || p === s.portal || isEarlierPortal(vols, i, p)) continue;
    count = Math.max(count, idx.volCount(p, s.targetIqn));
  }
  const kubeletBusy = count > 1;
  let usingVols = 0;
  for (const v of vols) if (v.mounted || v.pods.length > 0 || idx.podsByGlobal.has(v.path)) usingVols++;
  const unused = verdict === 'orphaned' || verdict === 'stale' || verdict === 'outage';
  if (kubeletBusy && unused) {
    return {
      kubeletBusy,
      kubeletDisagreement: `kubelet counts ${count} global dirs for this portal+IQN and would keep the session logged in, but nothing uses it`,
    };
  }
  if (!kubeletBusy && verdict === 'in-use' && usingVols > 1) {
    return {
      kubeletBusy,
      kubeletDisagreement: `kubelet counts ${count} global dir(s) and would log out when one volume detaches, though ${usingVols} volumes use this session`,
    };
  }
  if (!kubeletBusy && verdict === 'foreign' && count === 1) {
    return {
      kubeletBusy,
      kubeletDisagreement:
        'kubelet would log this session out when its one volume detaches, though a device is used outside kubelet',
    };
  }
  return { kubeletBusy };
}

/** True when `portal` is the portal of a volume before index `i` (each portal is counted once). */
function isEarlierPortal(vols: readonly KubeletVolume[], i: number, portal: string): boolean {
  for (let j = 0; j < i; j++) if (vols[j]!.portal === portal) return true;
  return false;
}
