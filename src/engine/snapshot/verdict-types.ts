/**
 * The types the verdict questions share (verdicts.ts asks them in order; each verdict-*.ts file is
 * one question): in their own file so no question imports verdicts.ts back.
 */
import type { PluginListing } from '../kubelet/paths.js';
import type { KubeletVolume, MultipathMap, PodName, PodVolume, PortalOutage, Verdict } from '../model.js';
import type { ClaimIndex } from './csi/claims.js';
import type { SysfsSession } from './sessions.js';
import type { DeviceUse, UsageResult } from './usage.js';

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
