import { dirname } from '../host/path.js';
import { normalizePortal } from '../iscsi/portal.js';
import { makeVolCounter, type PluginListing } from '../kubelet/paths.js';
import type { Health, KubeletVolume, MultipathMap, PodVolume, Session, Verdict } from '../model.js';
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
}

/** Portal+IQN identity used to match kubelet dirs to sessions (portals normalised: `[v6]:port`, default port). */
function refMaker(): (portal: string, iqn: string) => string {
  // The same few portal strings repeat across thousands of sessions and volumes: parse each once.
  const cache = new Map<string, string>();
  return (portal, iqn) => {
    let n = cache.get(portal);
    if (n === undefined) {
      n = normalizePortal(portal);
      cache.set(portal, n);
    }
    return `${n}|${iqn}`;
  };
}

/** Every portal a kubelet volume refers to: all of iscsi.json's Portals, else the dir name's. */
export function volumePortals(v: KubeletVolume): string[] {
  const ps = v.metadata?.Portals?.length ? v.metadata.Portals : [v.portal];
  return ps.filter((p) => p !== '');
}

function describeUse(u: DeviceUse, dev: string): string {
  const chain = u.via === dev ? dev : u.via;
  if (u.kind === 'swap') return `${chain} is swap (${u.where})`;
  if (u.kind === 'loop') return `${chain} is held by ${u.where} (backing file ${u.backingFile})`;
  return `${chain} is mounted at ${u.where}`;
}

/**
 * Decides each session's verdict and health (issue 2 "Verdicts"), with reasons:
 * - verdict: `foreign` if any device (or a partition/dm holder of it) is mounted outside the kubelet
 *   root or is swap; else `in-use` if mounted under the kubelet root, referred to by a pod volume dir,
 *   or held by a loop device backed under the kubelet plugin dir; else `orphaned` if a kubelet global
 *   dir refers to its portal+iqn (kubelet's refcount keeps it logged in forever); else `stale`.
 * - health: `failed` if not LOGGED_IN or no device is running; `degraded` if some device is not
 *   running or a multipath map holding one of its devices lost a path; else `ok`.
 * Also fills the volumes' `sessions`, and kubelet's own isSessionBusy answer beside ours.
 */
export function computeVerdicts(input: VerdictInput): Session[] {
  const { sessions, uses, volumes, podVolumes, multipath, fsListing, blockListing } = input;
  const ref = refMaker();
  const volsByRef = new Map<string, KubeletVolume[]>();
  for (const v of volumes) {
    if (!v.iqn) continue;
    for (const p of volumePortals(v)) {
      const k = ref(p, v.iqn);
      const l = volsByRef.get(k) ?? [];
      if (!l.includes(v)) l.push(v);
      volsByRef.set(k, l);
    }
  }
  const podsByGlobal = new Map<string, PodVolume[]>();
  for (const pv of podVolumes) {
    if (!pv.globalPath) continue;
    const l = podsByGlobal.get(pv.globalPath) ?? [];
    l.push(pv);
    podsByGlobal.set(pv.globalPath, l);
  }
  const loopsByRef = new Map<string, UsageResult['unresolvedKubeletLoops']>();
  for (const l of input.unresolvedKubeletLoops) {
    const k = ref(l.portal, l.iqn);
    loopsByRef.set(k, [...(loopsByRef.get(k) ?? []), l]);
  }
  const mapsBySlave = new Map<string, MultipathMap>();
  for (const m of multipath) for (const s of m.slaves) mapsBySlave.set(s, m);

  const volByPath = new Map(volumes.map((v) => [v.path, v]));
  const volCount = makeVolCounter(fsListing, blockListing);

  return sessions.map((s) => {
    const k = ref(s.portal, s.targetIqn);
    const vols = s.portal ? [...(volsByRef.get(k) ?? [])] : [];
    // A mounted FS volume hides its iscsi.json (so its other portals are unknown): the mount itself
    // ties it to every session under the device (a dm map's slaves), as does a block pod device node.
    for (const d of s.devices) {
      for (const mp of d.mountpoints) {
        const v = volByPath.get(mp) ?? volByPath.get(dirname(mp));
        if (v && !vols.includes(v)) vols.push(v);
      }
    }
    for (const v of vols) if (!v.sessions.includes(s.sid)) v.sessions.push(s.sid);
    const pods = new Set<string>();
    const podReasons: string[] = [];
    for (const v of vols) {
      for (const pv of podsByGlobal.get(v.path) ?? []) {
        pods.add(pv.podUid);
        podReasons.push(`pod ${pv.podUid} volume ${pv.volName} refers to ${v.path}`);
      }
    }

    const foreign: string[] = [];
    const kubeletUse: string[] = [];
    for (const d of s.devices) {
      if (!d.name) continue;
      for (const u of uses.get(d.name) ?? []) {
        const text = describeUse(u, d.name);
        if (u.kind === 'swap' || (u.kind === 'mount' && !u.kubelet))
          foreign.push(`${text} (outside the kubelet root)`);
        else if (u.kubelet) kubeletUse.push(text);
        else foreign.push(`${text} (not a kubelet block volume)`);
      }
    }
    for (const l of loopsByRef.get(k) ?? []) {
      kubeletUse.push(`${l.loop} is backed by ${l.backingFile} (LUN ${l.lun} of this target)`);
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

    // Health.
    let health: Health = 'ok';
    const running = s.devices.filter((d) => d.state === 'running');
    if (s.state !== 'LOGGED_IN') {
      health = 'failed';
      reasons.push(`session state is ${s.state}, not LOGGED_IN`);
    }
    if (running.length === 0) {
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
        reasons.push(`${d.name ?? d.hctl} (${d.hctl}) is ${d.state ?? 'in an unknown state'}`);
      }
    }
    const seenMaps = new Set<string>();
    for (const d of s.devices) {
      const m = d.name ? mapsBySlave.get(d.name) : undefined;
      if (!m || seenMaps.has(m.name) || m.failedSlaves.length === 0) continue;
      seenMaps.add(m.name);
      if (health === 'ok') health = 'degraded';
      reasons.push(
        `multipath map ${m.alias} (${m.name}) lost a path: ${m.failedSlaves.join(', ')} not running`,
      );
    }

    // kubelet's own answer: isSessionBusy with Portals[0] of each volume referring to this session
    // (and the session's own portal, as a PV naming it would), counted over both plugin trees.
    const portals = new Set([s.portal, ...vols.map((v) => v.portal)].filter((p) => p !== ''));
    let count = 0;
    for (const p of portals) {
      count = Math.max(count, volCount(p, s.targetIqn));
    }
    const kubeletBusy = count > 1;
    const usingVols = vols.filter(
      (v) => v.mounted || v.pods.length > 0 || (podsByGlobal.get(v.path)?.length ?? 0) > 0,
    ).length;
    let kubeletDisagreement: string | undefined;
    if (kubeletBusy && (verdict === 'orphaned' || verdict === 'stale')) {
      kubeletDisagreement = `kubelet counts ${count} global dirs for this portal+IQN and would keep the session logged in, but nothing uses it`;
    } else if (!kubeletBusy && verdict === 'in-use' && usingVols > 1) {
      kubeletDisagreement = `kubelet counts ${count} global dir(s) and would log out when one volume detaches, though ${usingVols} volumes use this session`;
    } else if (!kubeletBusy && verdict === 'foreign' && count === 1) {
      kubeletDisagreement =
        'kubelet would log this session out when its one volume detaches, though a device is used outside kubelet';
    }

    const out: Session = {
      ...s,
      verdict,
      health,
      reasons,
      kubeletBusy,
      kubeletVolumes: vols.map((v) => v.path),
      pods: [...pods],
    };
    if (kubeletDisagreement) out.kubeletDisagreement = kubeletDisagreement;
    return out;
  });
}
