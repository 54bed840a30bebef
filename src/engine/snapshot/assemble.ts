/**
 * The node-wide half of a snapshot: everything read besides the sessions' own sysfs dirs (block
 * class, mounts, swaps, links, kubelet tree, node DB), then the verdicts over all sessions. Shared by
 * the full read (index.ts) and the incremental refresh (incremental.ts), so both build a snapshot
 * the same way from the same inputs.
 */

import type { Host } from '../host/host.js';
import { normalizeKubeletRoot } from '../kubelet/paths.js';
import { type PortalProbe, SCHEMA_VERSION, type Session, type Snapshot } from '../model.js';
import { isoTime } from '../text/time.js';
import { readBlockClass } from './block-class.js';
import { buildClaimIndex } from './csi/claims.js';
import { readCsi } from './csi/read-csi.js';
import { readByPathLinks, readMapperNames } from './dev-links.js';
import { expectedState } from './expected.js';
import { readFsErrors } from './fs-errors.js';
import { findIscsiDbRoot, readIfaces, readInitiatorName, readNodeRecords } from './iscsi-db.js';
import { readIscsidState } from './iscsid.js';
import { readKubeletVolumes } from './kubelet-volumes.js';
import { readMountinfo } from './mountinfo.js';
import { applyTopology, cachedTopology } from './multipath-topology.js';
import { findOutages, isSessionDown } from './outages.js';
import { addPodRefs, readPodNames } from './pod-names.js';
import { readPodVolumes } from './pod-volumes.js';
import { buildPortalHostMap } from './portal-host-map.js';
import { readSessions, type SessionEntryRead, type SessionsRead, type SysfsSession } from './sessions.js';
import { splitStuck } from './stuck.js';
import { readSwaps } from './swaps.js';
import { linkUsage } from './usage.js';
import { computeVerdicts, csiVolumesWithSessions, volumesWithSessions } from './verdicts.js';

/** What a snapshot was built from, kept for the next incremental refresh (never serialised). */
interface ReadBasis {
  kubeletRoot: string;
  /** iscsi_session class names in listing order (the order a full read assembles them in). */
  names: string[];
  /** Each session's own read, by class name. */
  entries: Map<string, SessionEntryRead>;
}

// Keyed by the snapshot object the engine returned: a snapshot from anywhere else (a copy, a
// deserialised one, the store's shared version) has no basis and gets a full read.
const bases = new WeakMap<Snapshot, ReadBasis>();

/** The basis `snapshot` was read from, if this engine read it in this process. */
export function readBasisOf(snapshot: Snapshot): ReadBasis | undefined {
  return bases.get(snapshot);
}

export interface SnapshotOptions {
  /** Host path of the kubelet root dir (`--kubelet-root`, default /var/lib/kubelet). */
  kubeletRoot: string;
  /**
   * The live probe's latest results (src/engine/probe/prober.ts), when the caller probes: they tell
   * a portal outage from sessions stuck while their portal answers. The read itself sends nothing.
   */
  probes?: readonly PortalProbe[];
}

/**
 * Milliseconds on a monotonic clock, for `readMs`. Not `performance.now()`: the `performance` global
 * loads perf_hooks (ten of Node's modules, ~4 ms of CPU) on the first use, in every one-shot start.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The full read behind `takeSnapshot` (index.ts): every session, then the node-wide sources. */
export function takeFullSnapshot(host: Host, options: SnapshotOptions): Snapshot {
  const started = monotonicMs();
  const takenAt = isoTime(host.now());
  const kubeletRoot = normalizeKubeletRoot(options.kubeletRoot);
  host.startRead?.();
  return endingRead(host, () => {
    const problems: string[] = [];
    const entries = new Map<string, SessionEntryRead>();
    const read = readSessions(host, problems, entries);
    const basis = { kubeletRoot, names: [...entries.keys()], entries };
    return assembleSnapshot({
      host,
      kubeletRoot,
      read,
      basis,
      problems,
      started,
      takenAt,
      ...(options.probes ? { probes: options.probes } : {}),
    });
  });
}

/**
 * Runs a read begun with `host.startRead`, ending it if the read throws (assembleSnapshot ends a
 * read that completes): what the Host keeps only while a read lasts (confine.ts) must not outlive it.
 */
export function endingRead<T>(host: Host, read: () => T): T {
  try {
    return read();
  } catch (e) {
    host.endRead?.();
    throw e;
  }
}

// Re-exported: callers that take a snapshot normalise the root they pass the same way.
export { normalizeKubeletRoot };

interface AssembleInput {
  host: Host;
  /** Normalised kubelet root. */
  kubeletRoot: string;
  /** The sessions as read (problems of the session read already in `problems`). */
  read: SessionsRead;
  basis: ReadBasis;
  problems: string[];
  /** monotonicMs() and host clock at the start of the read. */
  started: number;
  takenAt: string;
  /** SnapshotOptions.probes. */
  probes?: readonly PortalProbe[];
}

/** Reads the node-wide sources and builds the snapshot (see the file comment). */
export function assembleSnapshot(input: AssembleInput): Snapshot {
  const { host, kubeletRoot, read, problems } = input;
  // Modules not loaded: no iscsi_host class at all. That is an empty node, not an error (kubernetes #74640).
  const iscsiLoaded = host.lstat('/sys/class/iscsi_host') !== undefined;
  const { sessions: raw, extras } = read;
  const { dm, loops } = readBlockClass(host);
  const mounts = readMountinfo(host, problems);
  const swaps = readSwaps(host);
  const byPath = readByPathLinks(host);
  const mapperNames = readMapperNames(host);
  const usage = linkUsage({
    host,
    kubeletRoot,
    sessions: raw,
    extras,
    dm,
    mounts,
    swaps,
    loops,
    byPath,
    mapperNames,
  });
  if (usage.multipath.length > 0) {
    // The last topology read (multipath-topology.ts), with this read's device states.
    const topology = cachedTopology(host);
    applyTopology(usage.multipath, raw, topology);
    for (const p of topology?.problems ?? []) problems.push(`multipath topology: ${p}`);
  }
  const kube = readKubeletVolumes(host, kubeletRoot, mounts);
  const podVolumes = readPodVolumes(host, kubeletRoot, mounts, kube.volumes);
  // The probe's results, when the caller probed, split the down portals: silent ones stay outages,
  // answering ones are stuck sessions to repair (stuck.ts).
  const { outages, stuck } = splitStuck(raw, findOutages(raw, input.takenAt), input.probes);
  const csi = readCsi(host, kubeletRoot, mounts, problems);
  const csiPresent = csi.state.volumes.length + csi.state.driverFiles.length + csi.state.drivers.length > 0;
  // Names of the pods using iSCSI volumes (pod-names.ts), for the reasons and the detail: one
  // listing, plus a read per UID the listing does not name. Sessions' pods come from podVolumes.
  const uids = new Set<string>(podVolumes.map((pv) => pv.podUid));
  for (const v of csi.state.volumes) for (const p of v.publish) uids.add(p.podUid);
  const podNames = readPodNames(host, kubeletRoot, uids);
  const verdicts = computeVerdicts({
    outages,
    sessions: raw,
    uses: usage.uses,
    unresolvedKubeletLoops: usage.unresolvedKubeletLoops,
    multipath: usage.multipath,
    volumes: kube.volumes,
    podVolumes,
    fsListing: kube.fsListing,
    blockListing: kube.blockListing,
    claims: buildClaimIndex(host, csi.state, csi.byPath),
    podNames,
  });
  const sessions = verdicts.sessions;
  // status --json names every pod beside its UID (docs/status-schema.md#pod-names).
  const named = addPodRefs(
    podNames,
    sessions,
    volumesWithSessions(kube.volumes, sessions),
    podVolumes,
    csiVolumesWithSessions(csi.state.volumes, verdicts),
  );
  const volumes = named.volumes;
  shareClaimedDevices(input.basis, raw, sessions);
  for (const s of sessions) if (isSessionDown(s)) s.downSeenAt = input.takenAt;
  const fsErrors = readFsErrors({
    host,
    kubeletRoot,
    mounts,
    sessions,
    multipath: usage.multipath,
    pods: podNames,
    // A --root tree's /dev/kmsg (if any) is the machine the console runs on, not the tree's node.
    kernelLog: host.kind !== 'root',
  });
  const dbRoot = findIscsiDbRoot(host);
  const nodeRecords = readNodeRecords(host, dbRoot, problems);
  const ifaces = readIfaces(host, dbRoot);
  const initiatorName = readInitiatorName(host);
  // Reads the Host refused by itself (odd or oversized files, link loops): one problem line each.
  for (const p of host.takeReadProblems?.() ?? []) problems.push(p);

  const snapshot: Snapshot = {
    schemaVersion: SCHEMA_VERSION,
    takenAt: input.takenAt,
    readMs: 0,
    node: { hostname: host.hostname(), root: host.root, kind: host.kind, kubeletRoot, iscsiLoaded },
    sessions,
    portalHostMap: buildPortalHostMap(sessions),
    multipath: usage.multipath,
    mounts,
    swaps,
    loops,
    kubelet: { root: kubeletRoot, volumes, podVolumes: named.podVolumes },
    nodeRecords,
    ifaces,
    outages,
    problems,
  };
  if (csiPresent) snapshot.csi = { ...csi.state, volumes: named.csiVolumes };
  const expected = expectedState({
    sessions,
    multipath: usage.multipath,
    volumes: kube.volumes,
    driverFiles: csi.state.driverFiles,
    mountPoints: new Set(mounts.map((m) => m.mountPoint)),
  });
  if (expected) snapshot.expected = expected;
  if (input.probes && input.probes.length > 0) snapshot.probes = [...input.probes];
  if (stuck.length > 0) snapshot.stuck = stuck;
  if (fsErrors.length > 0) snapshot.fsErrors = fsErrors;
  if (Object.keys(podNames).length > 0) snapshot.kubelet.pods = podNames;
  if (initiatorName !== undefined) snapshot.node.initiatorName = initiatorName;
  const iscsid = readIscsidState(host);
  if (iscsid !== undefined) snapshot.iscsid = iscsid;
  snapshot.readMs = Math.round((monotonicMs() - input.started) * 100) / 100;
  bases.set(snapshot, input.basis);
  host.endRead?.();
  return snapshot;
}

/**
 * Points this read's basis at the sessions' device copies that carry claims (verdicts.ts copies a
 * claimed device rather than change the read's own), so the next incremental read keeps one object
 * per LUN, not two (~1 MB at 4,000 LUNs, bench/README.md); it drops their claims when it copies them.
 */
function shareClaimedDevices(
  basis: ReadBasis,
  raw: readonly SysfsSession[],
  sessions: readonly Session[],
): void {
  let entryOf: Map<SysfsSession, SessionEntryRead> | undefined;
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i]!;
    const devices = sessions[i]!.devices;
    if (devices === r.devices) continue;
    entryOf ??= new Map(
      [...basis.entries.values()].flatMap((e) => (e.session ? [[e.session, e] as const] : [])),
    );
    const e = entryOf.get(r);
    if (e) e.session = { ...r, devices };
  }
}
