/**
 * What changed between two snapshots, as a SnapshotDiff and as events (worded by events.ts). Objects are matched by
 * fingerprint (session key, LUN key, map name, mount id, host path), never by sid or sdX alone:
 * sids are not persistent (iscsiadm.8) and sd names are reused by the kernel. Each event describes
 * one transition between the two snapshots, so comparing each pair once never reports a change twice.
 */
import type { KubeletVolume, Mount, ScsiDevice, Session, Snapshot } from '../engine/model.js';
import { nodeProblems } from '../engine/snapshot/problems.js';
import {
  deviceAppeared,
  deviceGone,
  deviceRenamed,
  deviceStateEvent,
  iscsiJsonChanged,
  iscsiJsonRemoved,
  iscsiJsonWritten,
  mapAppeared,
  mapGone,
  mounted,
  mountGone,
  pathAdded,
  pathFailed,
  pathLeft,
  pathRestored,
  podVolumeAdded,
  podVolumeRemoved,
  portalDownEvent,
  portalExpiredEvent,
  portalUpEvent,
  recordAdded,
  recordChanged,
  recordRemoved,
  recordStartup,
  sessionAppeared,
  sessionGone,
  sessionReestablished,
  sessionStateEvent,
  volumeDirAdded,
  volumeDirRemoved,
  volumeShort,
  volumeWhole,
} from './events.js';
import { deepEqual } from './share.js';
import type { EventDraft, SnapshotDiff } from './types.js';

interface DiffResult {
  diff: SnapshotDiff;
  events: EventDraft[];
}

/** Indexes items by key; a rare duplicate key keeps both, the later one suffixed. */
function byKey<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    let k = keyOf(item);
    for (let n = 2; map.has(k); n++) k = `${keyOf(item)}#${n}`;
    map.set(k, item);
  }
  return map;
}

interface Changes<T> {
  added(k: string, n: T): void;
  removed(k: string, p: T): void;
  /** Absent: a kept item's changes make no event (and are not compared). */
  changed?(k: string, p: T, n: T): void;
}

/** Calls back for added, removed and kept-but-different items. */
function compare<T>(prev: Map<string, T>, next: Map<string, T>, on: Changes<T>): void {
  for (const [k, n] of next) {
    const p = prev.get(k);
    if (p === undefined) on.added(k, n);
    else if (on.changed && p !== n && !deepEqual(p, n)) on.changed(k, p, n);
  }
  for (const [k, p] of prev) if (!next.has(k)) on.removed(k, p);
}

/** compare() over two lists whose items are matched by `keyOf`. */
function compareBy<T>(
  prev: readonly T[],
  next: readonly T[],
  keyOf: (item: T) => string,
  on: Changes<T>,
): void {
  compare(byKey(prev, keyOf), byKey(next, keyOf), on);
}

const volName = (v: KubeletVolume) => v.metadata?.VolName ?? v.path.slice(v.path.lastIndexOf('/') + 1);

function devicesOf(snap: Snapshot): Map<string, { device: ScsiDevice; session: Session }> {
  const out = new Map<string, { device: ScsiDevice; session: Session }>();
  for (const session of snap.sessions) {
    for (const device of session.devices) out.set(device.key, { device, session });
  }
  return out;
}

function diffOutages(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  const was = new Map(prev.outages.map((o) => [o.portal, o]));
  const is = new Map(next.outages.map((o) => [o.portal, o]));
  for (const [portal, o] of is) {
    const before = was.get(portal);
    if (!before) events.push(portalDownEvent(o));
    // Expired now, not before (or down and expired at once): the louder, separate event.
    if (o.expired && !before?.expired) events.push(portalExpiredEvent(o));
  }
  for (const [portal, o] of was) if (!is.has(portal)) events.push(portalUpEvent(o, next));
}

function diffSessions(prev: Snapshot, next: Snapshot, diff: SnapshotDiff, events: EventDraft[]): void {
  compareBy(prev.sessions, next.sessions, (s) => s.key, {
    added(k, s) {
      diff.sessionsAdded.push(k);
      events.push(sessionAppeared(s));
    },
    removed(k, s) {
      diff.sessionsRemoved.push(k);
      events.push(sessionGone(s));
    },
    changed(k, p, n) {
      diff.sessionsChanged.push(k);
      if (p.sid !== n.sid) events.push(sessionReestablished(p, n));
      if (p.state !== n.state) events.push(sessionStateEvent(n, p.state, n.state));
    },
  });
}

function diffDevices(prev: Snapshot, next: Snapshot, diff: SnapshotDiff, events: EventDraft[]): void {
  compare(devicesOf(prev), devicesOf(next), {
    added(k, { device: d, session: s }) {
      diff.devicesAdded.push(k);
      events.push(deviceAppeared(d, s));
    },
    removed(k, { device: d, session: s }) {
      diff.devicesRemoved.push(k);
      events.push(deviceGone(d, s));
    },
    changed(_k, { device: p }, { device: n }) {
      if (p.name !== n.name && p.name && n.name) events.push(deviceRenamed(p.name, n));
      if (p.state !== n.state) events.push(deviceStateEvent(n, p.state, n.state));
    },
  });
}

function diffMultipath(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  compareBy(prev.multipath, next.multipath, (m) => m.name, {
    added: (_k, m) => events.push(mapAppeared(m)),
    removed: (_k, m) => events.push(mapGone(m)),
    changed(_k, p, n) {
      for (const sd of n.failedSlaves) if (!p.failedSlaves.includes(sd)) events.push(pathFailed(n, sd));
      for (const sd of p.failedSlaves) {
        if (!n.failedSlaves.includes(sd) && n.slaves.includes(sd)) events.push(pathRestored(n, sd));
      }
      for (const sd of n.slaves) if (!p.slaves.includes(sd)) events.push(pathAdded(n, sd));
      for (const sd of p.slaves) if (!n.slaves.includes(sd)) events.push(pathLeft(n, sd));
    },
  });
}

/**
 * Mounts worth an event: those of iSCSI devices and maps, and those under kubelet's iSCSI plugin
 * and pod volume dirs. A node mounts and unmounts container filesystems all day; those are noise here.
 */
function relevantMounts(snap: Snapshot): (m: Mount) => boolean {
  const points = new Set<string>();
  for (const s of snap.sessions) for (const d of s.devices) for (const p of d.mountpoints) points.add(p);
  for (const m of snap.multipath) for (const p of m.mountpoints) points.add(p);
  const root = snap.kubelet.root.replace(/\/+$/, '');
  const plugin = `${root}/plugins/kubernetes.io/iscsi/`;
  const pods = `${root}/pods/`;
  return (m) =>
    points.has(m.mountPoint) ||
    m.mountPoint.startsWith(plugin) ||
    (m.mountPoint.startsWith(pods) && m.mountPoint.includes('/volumes/kubernetes.io~iscsi/'));
}

function diffMounts(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  const wasRelevant = relevantMounts(prev);
  const isRelevant = relevantMounts(next);
  compareBy(prev.mounts, next.mounts, (m) => String(m.mountId), {
    added: (_k, m) => isRelevant(m) && events.push(mounted(m)),
    removed: (_k, m) => wasRelevant(m) && events.push(mountGone(m)),
  });
}

function diffKubelet(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  // iscsi.json is hidden (not gone) while the global dir is mounted: only file-level transitions count.
  const jsonEvents = (p: KubeletVolume | undefined, n: KubeletVolume | undefined) => {
    const had = p?.metadataSource === 'iscsi.json';
    const has = n?.metadataSource === 'iscsi.json';
    // The name comes from whichever side could read the file (the removed one for a removal).
    const v = (had ? p : n) ?? (n ?? p)!;
    const file = `${v.path}/iscsi.json`;
    const name = volName(v);
    if (!had && has && p?.metadataSource !== 'hidden') events.push(iscsiJsonWritten(file, name));
    if (had && !has && n?.metadataSource !== 'hidden') events.push(iscsiJsonRemoved(file, name));
    if (had && has && !deepEqual(p?.metadata, n?.metadata)) events.push(iscsiJsonChanged(file, name));
  };
  compareBy(prev.kubelet.volumes, next.kubelet.volumes, (v) => v.path, {
    added(_k, v) {
      events.push(volumeDirAdded(v));
      jsonEvents(undefined, v);
    },
    removed(_k, v) {
      jsonEvents(v, undefined);
      events.push(volumeDirRemoved(v));
    },
    changed: (_k, p, n) => jsonEvents(p, n),
  });
  compareBy(prev.kubelet.podVolumes, next.kubelet.podVolumes, (v) => v.path, {
    added: (_k, v) => events.push(podVolumeAdded(v)),
    removed: (_k, v) => events.push(podVolumeRemoved(v)),
  });
}

/**
 * Volumes short of their expected paths or LUNs (the problems rule's expectation problems): an event
 * when one appears or its reason changes, and one when the volume is whole again.
 */
function diffExpected(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  const before = nodeProblems(prev).expected;
  const after = nodeProblems(next).expected;
  for (const [path, p] of after)
    if (before.get(path)?.reason !== p.reason)
      events.push(volumeShort(path, p.reason, p.severity === 'failed'));
  for (const path of before.keys()) {
    if (after.has(path)) continue;
    const v = next.expected?.volumes.find((x) => x.path === path);
    if (v) events.push(volumeWhole(path, v.name, v.paths));
  }
}

function diffRecords(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  compareBy(prev.nodeRecords, next.nodeRecords, (r) => r.path, {
    added: (_k, r) => events.push(recordAdded(r)),
    removed: (_k, r) => events.push(recordRemoved(r)),
    changed: (_k, p, n) => events.push(p.startup !== n.startup ? recordStartup(p, n) : recordChanged(n)),
  });
}

/** Compares two snapshots of the same node. Pure. */
export function diffSnapshots(prev: Snapshot, next: Snapshot): DiffResult {
  const diff: SnapshotDiff = {
    sessionsAdded: [],
    sessionsRemoved: [],
    sessionsChanged: [],
    devicesAdded: [],
    devicesRemoved: [],
  };
  const events: EventDraft[] = [];
  if (prev === next) return { diff, events };
  diffOutages(prev, next, events);
  diffSessions(prev, next, diff, events);
  diffDevices(prev, next, diff, events);
  diffMultipath(prev, next, events);
  diffMounts(prev, next, events);
  diffKubelet(prev, next, events);
  diffExpected(prev, next, events);
  diffRecords(prev, next, events);
  return { diff, events };
}
