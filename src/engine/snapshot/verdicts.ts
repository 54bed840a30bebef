import type { KubeletVolume, Session } from '../model.js';
import { withDeviceClaims } from './csi/device-claims.js';
import { trimmed, withItem } from './lists.js';
import type { SysfsSession } from './sessions.js';
import { claimedVerdict, withClaimPods } from './verdict-claims.js';
import { sessionHealth } from './verdict-health.js';
import { indexVerdictInput, sessionVolumes, type VerdictIndex } from './verdict-index.js';
import type { Decided, VerdictInput } from './verdict-types.js';

export type { Decided, VerdictInput };

import { kubeletAnswer } from './verdict-kubelet.js';
import { outageOf, outageVerdict } from './verdict-outage.js';
import { foreignUses, kubeletUses, podUsers } from './verdict-use.js';

export { volumePortals } from './verdict-index.js';

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
  if (claimed.leftBy && verdict === 'stale') v.leftBy = claimed.leftBy;
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
