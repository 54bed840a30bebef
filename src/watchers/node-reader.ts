/**
 * The read step of the poll pipeline: a full snapshot, or an incremental one that re-reads only the
 * sessions the probes say moved (refreshSnapshot, src/engine/snapshot/incremental.ts: ~0.2 s instead
 * of ~1.5 s at 1,000 sessions × 4 LUNs, bench/README.md). Holds what an incremental read builds on:
 * the last snapshot and the probe taken just before it.
 */
import type { Host } from '../engine/host/host.js';
import type { PortalProbe, Snapshot } from '../engine/model.js';
import type { refreshSnapshot, takeSnapshot } from '../engine/snapshot/index.js';
import { diffProbes } from './probe-diff.js';
import type { SysfsProbe } from './sysfs-probe.js';

/** Reasons the poll gives; a refresh for only these may be incremental. */
export const SYSFS_CHANGED = 'sysfs changed';
export const MOUNTS_CHANGED = 'mounts changed';
/** iscsid's pid came or went (poll-pipeline.ts): every read takes Snapshot.iscsid, an incremental one too. */
export const ISCSID_CHANGED = 'iscsid changed';
/**
 * A multipath topology read came in (multipath-topology.ts): the read that carries it may be
 * incremental too, since every read assembles the maps with the last topology read. The first one
 * always comes right after the first full read, and as a second full read it held the console's
 * keys for another ~2 s at 1,000 sessions × 4 LUNs (~4 s on `--demo scale`, bench/README.md).
 */
export const TOPOLOGY_READ = 'multipath topology read';
const INCREMENTAL_REASONS: ReadonlySet<string> = new Set([
  SYSFS_CHANGED,
  MOUNTS_CHANGED,
  TOPOLOGY_READ,
  ISCSID_CHANGED,
]);

interface NodeReaderOptions {
  host: Host;
  kubeletRoot: string;
  /** The full read. */
  read: (host: Host, options: ReadOptions) => Snapshot;
  /** The incremental read; absent: every read is full. */
  refresh: typeof refreshSnapshot | undefined;
  /** Longest time between full reads while reading incrementally, ms (0: always full). */
  fullRefreshMs: number;
  /** The live probe's latest results, once the admin asked for a probe (the console's key). */
  probes?: () => readonly PortalProbe[];
}

type ReadOptions = { kubeletRoot: string; probes?: readonly PortalProbe[] };

interface NodeRead {
  snapshot: Snapshot;
  /** True when every object was read (not only the sessions that moved). */
  full: boolean;
}

export interface NodeReader {
  /** Reads the node for `reason` (the refresher's joined reasons); `probe` was taken just before. */
  read(reason: string, probe: SysfsProbe): NodeRead;
  /** The last snapshot read and the probe paired with it. */
  last(): { snapshot: Snapshot; probe: SysfsProbe } | undefined;
  /** Records the last read (after the caller has carried outage times into it). */
  remember(snapshot: Snapshot, probe: SysfsProbe): void;
  /** Forgets the last read (it failed): the next read is full. */
  forget(): void;
  /** Sessions the next incremental read re-reads whatever the probes say. */
  recheck(sids: Iterable<number>): void;
}

/** The read engines as the watcher's options give them (an injected full reader alone: always full). */
export function readEngines(
  takeSnapshotOption: typeof takeSnapshot | undefined,
  refreshSnapshotOption: typeof refreshSnapshot | undefined,
  defaults: { take: typeof takeSnapshot; refresh: typeof refreshSnapshot },
): Pick<NodeReaderOptions, 'read' | 'refresh'> {
  return {
    read: takeSnapshotOption ?? defaults.take,
    refresh: refreshSnapshotOption ?? (takeSnapshotOption ? undefined : defaults.refresh),
  };
}

export function createNodeReader(o: NodeReaderOptions): NodeReader {
  let lastRead: { snapshot: Snapshot; probe: SysfsProbe } | undefined;
  let lastFullAt = Number.NEGATIVE_INFINITY;
  const pending = new Set<number>();

  /**
   * Incremental when the refresh is the poll's or a topology read's alone (every other source may have changed anything)
   * and a full read is not due; the sessions to re-read come from the probe before the last read
   * against this one, so a change that landed after that probe is re-read now.
   */
  /** What every read is given: the kubelet root and, once probed, the probe's results (stuck vs outage). */
  function readOptions(): ReadOptions {
    const probes = o.probes?.() ?? [];
    return { kubeletRoot: o.kubeletRoot, ...(probes.length > 0 ? { probes } : {}) };
  }

  function read(reason: string, probe: SysfsProbe): NodeRead {
    const pollOnly = reason.split(', ').every((r) => INCREMENTAL_REASONS.has(r));
    const now = o.host.now();
    if (o.refresh && lastRead && pollOnly && now - lastFullAt < o.fullRefreshMs) {
      let changed = diffProbes(lastRead.probe.detail, probe.detail);
      if (pending.size > 0 && !changed.structural)
        changed = { sids: [...new Set([...changed.sids, ...pending])], structural: false };
      pending.clear();
      const r = o.refresh(o.host, readOptions(), lastRead.snapshot, changed);
      if (!r.incremental) lastFullAt = now;
      return { snapshot: r.snapshot, full: !r.incremental };
    }
    lastFullAt = now;
    pending.clear();
    return { snapshot: o.read(o.host, readOptions()), full: true };
  }

  return {
    read,
    last: () => lastRead,
    remember(snapshot, probe) {
      lastRead = { snapshot, probe };
    },
    forget() {
      lastRead = undefined;
    },
    recheck(sids) {
      for (const sid of sids) pending.add(sid);
    },
  };
}
