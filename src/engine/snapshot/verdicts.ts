import { dirname } from '../host/path.js';
import { normalizePortal } from '../iscsi/portal.js';
import { makeVolCounter, type PluginListing } from '../kubelet/paths.js';
import type {
  Health,
  KubeletVolume,
  MultipathMap,
  PodName,
  PodVolume,
  PortalOutage,
  Session,
  Verdict,
} from '../model.js';
import { applyClaims, type ClaimIndex } from './csi/claims.js';
import { addDeviceClaims } from './csi/device-claims.js';
import { trimmed, withItem } from './lists.js';
import { podLabel } from './pod-names.js';
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

/**
 * Lists keyed by portal+IQN (portals normalised: `[v6]:port`, default port), as two map levels so a
 * lookup per session builds no key string (bench/README.md: this runs for every session and volume).
 */
class ByRef<T> {
  private readonly byPortal = new Map<string, Map<string, T[]>>();
  // The same few portal strings repeat across thousands of sessions and volumes: parse each once.
  private readonly normal = new Map<string, string>();

  private norm(portal: string): string {
    let n = this.normal.get(portal);
    if (n === undefined) {
      n = normalizePortal(portal);
      this.normal.set(portal, n);
    }
    return n;
  }

  /** The list for portal+iqn, created when `create` (else undefined when absent). */
  list(portal: string, iqn: string, create: true): T[];
  list(portal: string, iqn: string, create?: false): T[] | undefined;
  list(portal: string, iqn: string, create = false): T[] | undefined {
    const n = this.norm(portal);
    let m = this.byPortal.get(n);
    if (!m) {
      if (!create) return undefined;
      m = new Map();
      this.byPortal.set(n, m);
    }
    let l = m.get(iqn);
    if (!l && create) {
      l = [];
      m.set(iqn, l);
    }
    return l;
  }
}

/** `path`'s parent, as posix.dirname gives it for the absolute, slash-free-ended paths mountinfo holds. */
function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  if (i <= 0 || i === path.length - 1 || path.charCodeAt(0) !== 47 || path.charCodeAt(i - 1) === 47)
    return dirname(path);
  return path.slice(0, i);
}

/** Every portal a kubelet volume refers to: all of iscsi.json's Portals, else the dir name's. */
export function volumePortals(v: KubeletVolume): string[] {
  const ps = v.metadata?.Portals?.length ? v.metadata.Portals : [v.portal];
  return ps.filter((p) => p !== '');
}

function describeUse(u: DeviceUse, dev: string, podNames: VerdictInput['podNames']): string {
  const chain = u.via === dev ? dev : u.via;
  if (u.kind === 'swap') return `${chain} is swap (${u.where})`;
  if (u.kind === 'loop') return `${chain} is held by ${u.where} (backing file ${u.backingFile})`;
  if (u.kind === 'block-bind')
    return u.kubelet
      ? `${chain}'s device node is bound at ${u.where} (kubelet block volume${u.podUid ? `, pod ${podLabel(podNames, u.podUid)}` : ''})`
      : `${chain}'s device node is bind-mounted at ${u.where}`;
  return `${chain} is mounted at ${u.where}`;
}

/**
 * Decides each session's verdict and health (docs/status-schema.md, verdicts), with reasons:
 * - verdict: `foreign` if any device (or a partition/dm holder of it) is mounted outside the kubelet
 *   root or is swap; else `in-use` if mounted under the kubelet root, referred to by a pod volume dir,
 *   or held by a loop device backed under the kubelet plugin dir; else `orphaned` if a kubelet global
 *   dir refers to its portal+iqn (kubelet's refcount keeps it logged in forever); else `stale`.
 *   An orphaned or stale session whose portal is down (outages.ts) is `outage` instead.
 * - health: `failed` if not LOGGED_IN or no device is running; `degraded` if some device is not
 *   running or a multipath map holding one of its devices lost a path; else `ok`.
 * Also fills the volumes' `sessions`, and kubelet's own isSessionBusy answer beside ours.
 */
export function computeVerdicts(input: VerdictInput): Session[] {
  const { sessions, uses, volumes, podVolumes, multipath, fsListing, blockListing } = input;
  const volsByRef = new ByRef<KubeletVolume>();
  for (const v of volumes) {
    if (!v.iqn) continue;
    for (const p of volumePortals(v)) {
      const l = volsByRef.list(p, v.iqn, true);
      if (!l.includes(v)) l.push(v);
    }
  }
  const podsByGlobal = new Map<string, PodVolume[]>();
  for (const pv of podVolumes) {
    if (!pv.globalPath) continue;
    const l = podsByGlobal.get(pv.globalPath);
    if (l) l.push(pv);
    else podsByGlobal.set(pv.globalPath, [pv]);
  }
  const loopsByRef = new ByRef<UsageResult['unresolvedKubeletLoops'][number]>();
  for (const l of input.unresolvedKubeletLoops) loopsByRef.list(l.portal, l.iqn, true).push(l);
  const mapsBySlave = new Map<string, MultipathMap>();
  for (const m of multipath) for (const s of m.slaves) mapsBySlave.set(s, m);

  const volByPath = new Map<string, KubeletVolume>();
  for (const v of volumes) volByPath.set(v.path, v);
  const volCount = makeVolCounter(fsListing, blockListing);
  const outageByPortal = new Map((input.outages ?? []).map((o) => [o.portal, o]));

  const out: Session[] = new Array(sessions.length);
  for (let si = 0; si < sessions.length; si++) {
    const s = sessions[si]!;
    const refVols = s.portal ? volsByRef.list(s.portal, s.targetIqn) : undefined;
    // Copied only when a mount adds a volume the portal+IQN did not name.
    let vols: KubeletVolume[] = refVols ?? EMPTY;
    let own = false;
    // A mounted FS volume hides its iscsi.json (so its other portals are unknown): the mount itself
    // ties it to every session under the device (a dm map's slaves), as does a block pod device node.
    for (const d of s.devices) {
      const binds = d.blockBinds;
      const paths = binds ? [...d.mountpoints, ...binds.map((b) => b.path)] : d.mountpoints;
      for (const mp of paths) {
        const v = volByPath.get(mp) ?? volByPath.get(parentOf(mp));
        if (v && !vols.includes(v)) {
          if (!own) {
            vols = vols.slice();
            own = true;
          }
          vols.push(v);
        }
      }
    }
    for (const v of vols) v.sessions = withItem(v.sessions, s.sid);
    const pods: string[] = [];
    const podReasons: string[] = [];
    for (const v of vols) {
      const pvs = podsByGlobal.get(v.path);
      if (!pvs) continue;
      for (const pv of pvs) {
        if (!pods.includes(pv.podUid)) pods.push(pv.podUid);
        podReasons.push(
          `pod ${podLabel(input.podNames, pv.podUid)} volume ${pv.volName} refers to ${v.path}`,
        );
      }
    }

    const foreign: string[] = [];
    const kubeletUse: string[] = [];
    for (const d of s.devices) {
      if (!d.name) continue;
      const us = uses.get(d.name);
      if (!us) continue;
      for (const u of us) {
        const text = describeUse(u, d.name, input.podNames);
        if (u.kind === 'swap' || ((u.kind === 'mount' || u.kind === 'block-bind') && !u.kubelet))
          foreign.push(`${text} (outside the kubelet root)`);
        else if (u.kubelet) kubeletUse.push(text);
        else foreign.push(`${text} (not a kubelet block volume)`);
      }
    }
    const loops = loopsByRef.list(s.portal, s.targetIqn);
    if (loops) {
      for (const l of loops) {
        kubeletUse.push(`${l.loop} is backed by ${l.backingFile} (LUN ${l.lun} of this target)`);
      }
    }

    const reasons: string[] = [];
    let verdict: Verdict;
    if (foreign.length > 0) {
      verdict = 'foreign';
      reasons.push(...foreign, ...kubeletUse, ...podReasons);
    } else if (kubeletUse.length > 0 || podReasons.length > 0) {
      verdict = 'in-use';
      reasons.push(...kubeletUse, ...podReasons);
    } else if (vols.length > 0) {
      verdict = 'orphaned';
      for (const v of vols) {
        reasons.push(
          `kubelet global dir ${v.path} refers to ${s.portal} ${s.targetIqn} but no pod or mount uses it`,
        );
      }
      reasons.push("kubelet's refcount counts these dirs, so kubelet will never log this session out");
    } else {
      verdict = 'stale';
      reasons.push('no mount, swap, loop device, pod volume or kubelet global dir refers to this session');
    }
    // CSI drivers: a claimed session is never stale; an unclaimed one says which driver made it.
    const claims = input.claims?.claimsOf(s);
    if (claims && input.claims) {
      const hint = claims.length === 0 && verdict === 'stale' ? input.claims.hintFor(s) : undefined;
      verdict = applyClaims(verdict, reasons, claims, hint);
      // Pods of a claim count as users only while mounted; an unmounted claim's pods are in its reasons.
      if (verdict === 'in-use' || verdict === 'foreign')
        for (const c of claims) if (c.mounted) for (const p of c.pods) if (!pods.includes(p)) pods.push(p);
    }
    const outage = s.portal === '' ? undefined : outageByPortal.get(s.portal);
    if (outage) {
      // The outage comes first: it is what the admin must know before anything else about the session.
      reasons.unshift(outage.summary);
      if (verdict === 'orphaned' || verdict === 'stale') {
        reasons.splice(
          1,
          0,
          `nothing on this node uses it (it would be ${verdict}), but its portal is down: iscsid logs it back in when the portal returns`,
        );
        verdict = 'outage';
      }
    }

    // Health.
    let health: Health = 'ok';
    let running = 0;
    for (const d of s.devices) if (d.state === 'running') running++;
    if (s.state !== 'LOGGED_IN') {
      health = 'failed';
      reasons.push(`session state is ${s.state}, not LOGGED_IN`);
    }
    if (running === 0) {
      health = 'failed';
      reasons.push(
        s.devices.length === 0
          ? 'the session has no SCSI devices'
          : 'no SCSI device of the session is running',
      );
    }
    for (const d of s.devices) {
      if (d.state !== 'running') {
        if (health === 'ok') health = 'degraded';
        // A LUN without a block device (a controller LUN 0) is named by its H:C:T:L once, not twice.
        reasons.push(`${d.name ? `${d.name} (${d.hctl})` : d.hctl} is ${d.state ?? 'in an unknown state'}`);
      }
    }
    let seenMaps: MultipathMap[] | undefined;
    for (const d of s.devices) {
      const m = d.name ? mapsBySlave.get(d.name) : undefined;
      if (!m || m.failedSlaves.length === 0 || seenMaps?.includes(m)) continue;
      if (seenMaps) seenMaps.push(m);
      else seenMaps = [m];
      if (health === 'ok') health = 'degraded';
      reasons.push(
        `multipath map ${m.alias} (${m.name}) lost a path: ${m.failedSlaves.join(', ')} not running`,
      );
    }

    // kubelet's own answer: isSessionBusy with Portals[0] of each volume referring to this session
    // (and the session's own portal, as a PV naming it would), counted over both plugin trees.
    let count = 0;
    if (s.portal !== '') count = volCount(s.portal, s.targetIqn);
    for (let i = 0; i < vols.length; i++) {
      const p = vols[i]!.portal;
      if (p === '' || p === s.portal || isEarlierPortal(vols, i, p)) continue;
      count = Math.max(count, volCount(p, s.targetIqn));
    }
    const kubeletBusy = count > 1;
    let usingVols = 0;
    for (const v of vols) if (v.mounted || v.pods.length > 0 || podsByGlobal.has(v.path)) usingVols++;
    let kubeletDisagreement: string | undefined;
    if (kubeletBusy && (verdict === 'orphaned' || verdict === 'stale' || verdict === 'outage')) {
      kubeletDisagreement = `kubelet counts ${count} global dirs for this portal+IQN and would keep the session logged in, but nothing uses it`;
    } else if (!kubeletBusy && verdict === 'in-use' && usingVols > 1) {
      kubeletDisagreement = `kubelet counts ${count} global dir(s) and would log out when one volume detaches, though ${usingVols} volumes use this session`;
    } else if (!kubeletBusy && verdict === 'foreign' && count === 1) {
      kubeletDisagreement =
        'kubelet would log this session out when its one volume detaches, though a device is used outside kubelet';
    }

    const kubeletVolumes: string[] = new Array(vols.length);
    for (let i = 0; i < vols.length; i++) kubeletVolumes[i] = vols[i]!.path;
    const v: Session = {
      ...s,
      verdict,
      health,
      reasons: trimmed(reasons),
      kubeletBusy,
      kubeletVolumes,
      pods: trimmed(pods),
    };
    if (kubeletDisagreement) v.kubeletDisagreement = kubeletDisagreement;
    if (claims && claims.length > 0) v.claims = claims;
    addDeviceClaims(s.devices, vols, claims);
    out[si] = v;
  }
  return out;
}

const EMPTY: KubeletVolume[] = [];

/** True when `portal` is the portal of a volume before index `i` (each portal is counted once). */
function isEarlierPortal(vols: readonly KubeletVolume[], i: number, portal: string): boolean {
  for (let j = 0; j < i; j++) if (vols[j]!.portal === portal) return true;
  return false;
}
