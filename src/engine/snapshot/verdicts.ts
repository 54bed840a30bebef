import type { CsiVolume, KubeletVolume, Session } from '../model.js';
import { withDeviceClaims } from './csi/device-claims.js';
import { none, trimmed, withItem } from './lists.js';
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

/** computeVerdicts' answer: the sessions, and the CSI volumes each one's claims are of (by index). */
interface Verdicts {
  sessions: Session[];
  csiVolumes: (readonly CsiVolume[])[];
}

/**
 * The sessions with their verdicts, health, reasons, kubelet volumes, pods and device claims: new
 * objects; the input (sessions, their devices, the kubelet and CSI volumes) is left as it is. The
 * volumes' `sessions` come from `volumesWithSessions` and `csiVolumesWithSessions`.
 */
export function computeVerdicts(input: VerdictInput): Verdicts {
  const idx = indexVerdictInput(input);
  const n = input.sessions.length;
  const out: Verdicts = { sessions: new Array(n), csiVolumes: new Array(n) };
  for (let i = 0; i < n; i++) {
    const v = sessionVerdict(input.sessions[i]!, input, idx);
    out.sessions[i] = v.session;
    out.csiVolumes[i] = v.csiVolumes ?? NO_VOLUMES;
  }
  return out;
}

const NO_VOLUMES: readonly CsiVolume[] = none();

function sessionVerdict(
  s: SysfsSession,
  input: VerdictInput,
  idx: VerdictIndex,
): { session: Session; csiVolumes: readonly CsiVolume[] | undefined } {
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
  return { session: v, csiVolumes: claimed.csiVolumes };
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
  for (const s of sessions) for (const path of s.kubeletVolumes) addSid(sids, path, s.sid);
  return withSessions(volumes, (v) => sids.get(v.path));
}

/**
 * The CSI volumes with the sids of the sessions whose claims are of them (computeVerdicts'
 * `csiVolumes`), in session order: new objects for those, the others as they are.
 */
export function csiVolumesWithSessions(volumes: readonly CsiVolume[], verdicts: Verdicts): CsiVolume[] {
  const sids = new Map<CsiVolume, number[]>();
  verdicts.sessions.forEach((s, i) => {
    for (const v of verdicts.csiVolumes[i] ?? NO_VOLUMES) addSid(sids, v, s.sid);
  });
  return withSessions(volumes, (v) => sids.get(v));
}

function addSid<K>(sids: Map<K, number[]>, key: K, sid: number): void {
  const l = sids.get(key);
  if (l) l.push(sid);
  else sids.set(key, [sid]);
}

/** Each volume with `sidsOf(volume)` added to its `sessions` (a new object), or as it is when none. */
function withSessions<V extends { sessions: number[] }>(
  volumes: readonly V[],
  sidsOf: (v: V) => readonly number[] | undefined,
): V[] {
  return volumes.map((v) => {
    const l = sidsOf(v);
    if (!l) return v;
    let sessionsOf = v.sessions;
    for (const sid of l) sessionsOf = withItem(sessionsOf, sid);
    return { ...v, sessions: sessionsOf };
  });
}
