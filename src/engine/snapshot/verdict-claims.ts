/**
 * Claimed? A session a CSI driver claims (docs/csi-drivers.md) is never stale or orphaned; one
 * nothing claims but whose driver is recognisable says which driver made it.
 */
import type { CsiVolume, SessionClaim } from '../model.js';
import { applyClaims, type ClaimIndex } from './csi/claims.js';
import type { SysfsSession } from './sessions.js';
import type { Decided } from './verdict-types.js';

/** What a session's claims leave: the verdict, the claims, and the CSI volumes they are of. */
type ClaimedVerdict = Decided & {
  claims?: SessionClaim[];
  csiVolumes?: readonly CsiVolume[];
  leftBy?: string;
};

/** The verdict with the session's claims applied (a new value), and the claims found. */
export function claimedVerdict(
  s: SysfsSession,
  decided: Decided,
  index: ClaimIndex | undefined,
): ClaimedVerdict {
  if (!index) return decided;
  const { claims, volumes } = index.claimsOf(s);
  const hint = claims.length === 0 && decided.verdict === 'stale' ? index.hintFor(s) : undefined;
  const reasons = decided.reasons.slice();
  const verdict = applyClaims(decided.verdict, reasons, claims, hint?.text);
  return {
    verdict,
    reasons,
    claims,
    csiVolumes: volumes,
    ...(hint && verdict === 'stale' ? { leftBy: hint.driver } : {}),
  };
}

/**
 * A claim's pods count as the session's users only while it is mounted and the session is in use;
 * an unmounted claim's pods are in its reasons. Returns `pods` with them added (a new list).
 */
export function withClaimPods(
  pods: readonly string[],
  decided: Decided & { claims?: readonly SessionClaim[] },
): string[] {
  const out = pods.slice();
  if (decided.verdict !== 'in-use' && decided.verdict !== 'foreign') return out;
  for (const c of decided.claims ?? [])
    if (c.mounted) for (const p of c.pods) if (!out.includes(p)) out.push(p);
  return out;
}
