/**
 * Each session's verdict and health (docs/status-schema.md, verdicts), with reasons, as a chain of
 * questions, each answered by a function of its own and none changing its input:
 * - foreign? (verdict-use.ts) a device (or a partition/dm holder of it) is mounted outside the
 *   kubelet root or is swap;
 * - in use? (verdict-use.ts) mounted under the kubelet root, referred to by a pod volume dir, or held
 *   by a loop device backed under the kubelet plugin dir;
 * - else `orphaned` if a kubelet global dir refers to its portal+iqn (kubelet's refcount keeps it
 *   logged in forever), else `stale`;
 * - claimed? (verdict-claims.ts) a CSI driver's claim: never stale or orphaned;
 * - outage? (verdict-outage.ts) an orphaned or stale session whose portal is down is `outage`;
 * - health (verdict-health.ts) and kubelet's own isSessionBusy answer beside ours (verdict-kubelet.ts).
 */

import type { PluginListing } from '../kubelet/paths.js';
import type {
  KubeletVolume,
  MultipathMap,
  PodName,
  PodVolume,
  PortalOutage,
  Session,
  Verdict,
} from '../model.js';
import type { ClaimIndex } from './csi/claims.js';
import { withDeviceClaims } from './csi/device-claims.js';
import { trimmed, withItem } from './lists.js';
import type { SysfsSession } from './sessions.js';
import type { DeviceUse, UsageResult } from './usage.js';
import { claimedVerdict, withClaimPods } from './verdict-claims.js';
import { sessionHealth } from './verdict-health.js';
import { indexVerdictInput, sessionVolumes, type VerdictIndex } from './verdict-index.js';
import { kubeletAnswer } from './verdict-kubelet.js';
import { outageOf, outageVerdict } from './verdict-outage.js';
import { foreignUses, kubeletUses, podUsers } from './verdict-use.js';

export { volumePortals } from './verdict-index.js';

export interface VerdictInput {
  sessions: readonly SysfsSession[];
  uses: ReadonlyMap<string, DeviceUse[]>;
  unresolvedKubeletLoops: UsageResult['unresolvedKubeletLoops'];
  multipath: readonly MultipathMap[];
  volumes: readonly KubeletVolume[];
  podVolumes: readonly PodVolume[];
  fsListing: PluginListing;
  blockListing: PluginListing;
  /** Portals that are down (outages.ts findOutages): a session there is never plain stale. */
  outages?: readonly PortalOutage[];
  /** CSI drivers' claims (docs/csi-drivers.md); absent: in-tree rules only. */
  claims?: ClaimIndex;
  /** Pod names by UID (pod-names.ts): reasons name a pod by them where the node says. */
  podNames?: Readonly<Record<string, PodName>>;
}

/** A verdict and the reasons behind it, as one question leaves it for the next. */
export interface Decided {
  verdict: Verdict;
  reasons: string[];
}

/**
 * The sessions with their verdicts, health, reasons, kubelet volumes, pods and device claims: new
 * objects; the input (sessions, their devices, the volumes) is left as it is. The volumes'
 * `sessions` come from `volumesWithSessions`.
 */
export function computeVerdicts(input: VerdictInput): Session[] {
  const idx = indexVerdictInput(input);
  const out: Session[] = new Array(input.sessions.length);
  for (let i = 0; i < input.sessions.length; i++) out[i] = sessionVerdict(input.sessions[i]!, input, idx);
  return out;
}

function sessionVerdict(s: SysfsSession, input: VerdictInput, idx: VerdictIndex): Session {
  const vols = sessionVolumes(s, idx);
  const users = podUsers(vols, idx, input.podNames);
  const inTree = inTreeVerdict(
    s,
    foreignUses(s, input.uses, input.podNames),
    kubeletUses(s, input.uses, idx, input.podNames),
    users.reasons,
    vols,
  );
  const claimed = claimedVerdict(s, inTree, input.claims);
  const pods = withClaimPods(users.pods, claimed);
  const { verdict, reasons } = outageVerdict(claimed, outageOf(s, idx));
  const health = sessionHealth(s, idx);
  const kubelet = kubeletAnswer(s, vols, verdict, idx);
  const v: Session = {
    ...s,
    devices: withDeviceClaims(s.devices, vols, claimed.claims),
    verdict,
    health: health.health,
    reasons: trimmed([...reasons, ...health.reasons]),
    kubeletBusy: kubelet.kubeletBusy,
    kubeletVolumes: vols.map((x) => x.path),
    pods: pods.slice(),
  };
  if (kubelet.kubeletDisagreement) v.kubeletDisagreement = kubelet.kubeletDisagreement;
  if (claimed.claims && claimed.claims.length > 0) v.claims = claimed.claims;
  return v;
}

/** The in-tree verdict: foreign, in use, orphaned (a kubelet global dir refers to it) or stale. */
function inTreeVerdict(
  s: SysfsSession,
  foreign: readonly string[],
  kubeletUse: readonly string[],
  podReasons: readonly string[],
  vols: readonly KubeletVolume[],
): Decided {
  if (foreign.length > 0) return { verdict: 'foreign', reasons: [...foreign, ...kubeletUse, ...podReasons] };
  if (kubeletUse.length > 0 || podReasons.length > 0)
    return { verdict: 'in-use', reasons: [...kubeletUse, ...podReasons] };
  if (vols.length > 0) {
    return {
      verdict: 'orphaned',
      reasons: [
        ...vols.map(
          (v) =>
            `kubelet global dir ${v.path} refers to ${s.portal} ${s.targetIqn} but no pod or mount uses it`,
        ),
        "kubelet's refcount counts these dirs, so kubelet will never log this session out",
      ],
    };
  }
  return {
    verdict: 'stale',
    reasons: ['no mount, swap, loop device, pod volume or kubelet global dir refers to this session'],
  };
}

/**
 * The volumes with the sids of the sessions that refer to them (each session's `kubeletVolumes`),
 * in session order: a new object for each volume a session refers to, the others as they are.
 */
export function volumesWithSessions(
  volumes: readonly KubeletVolume[],
  sessions: readonly Session[],
): KubeletVolume[] {
  const sids = new Map<string, number[]>();
  for (const s of sessions) {
    for (const path of s.kubeletVolumes) {
      const l = sids.get(path);
      if (l) l.push(s.sid);
      else sids.set(path, [s.sid]);
    }
  }
  return volumes.map((v) => {
    const l = sids.get(v.path);
    if (!l) return v;
    let sessionsOf = v.sessions;
    for (const sid of l) sessionsOf = withItem(sessionsOf, sid);
    return { ...v, sessions: sessionsOf };
  });
}
