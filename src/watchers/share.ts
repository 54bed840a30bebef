/**
 * Structural sharing between consecutive snapshots. A snapshot is re-read as a whole, so every
 * object in it is new; rows whose content did not change get their previous object back, so
 * `memo` rows and zustand selectors (which compare by reference, docs/architecture.md#render-and-update-budget) skip them.
 */
import type { Snapshot } from '../engine/model.js';

/** Deep equality for JSON-shaped data (what a snapshot is made of). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * Returns `next` with each item replaced by its equal predecessor (same key), and `prev` itself
 * when every item was reused in the same order.
 */
function shareList<T>(prev: readonly T[] | undefined, next: T[], keyOf: (item: T) => string): T[] {
  if (!prev) return next;
  const byKey = new Map<string, T>();
  for (const p of prev) byKey.set(keyOf(p), p);
  let allSame = prev.length === next.length;
  const out = next.map((item, i) => {
    const old = byKey.get(keyOf(item));
    if (old !== undefined && deepEqual(old, item)) {
      if (prev[i] !== old) allSame = false;
      return old;
    }
    allSame = false;
    return item;
  });
  return allSame ? (prev as T[]) : out;
}

function shareValue<T>(prev: T | undefined, next: T): T {
  return prev !== undefined && deepEqual(prev, next) ? prev : next;
}

/** `next` with every unchanged row (session, map, mount, volume, record...) taken from `prev`. */
export function shareSnapshot(prev: Snapshot | undefined, next: Snapshot): Snapshot {
  if (!prev) return next;
  return {
    ...next,
    node: shareValue(prev.node, next.node),
    sessions: shareList(prev.sessions, next.sessions, (s) => `${s.key}#${s.sid}`),
    portalHostMap: shareValue(prev.portalHostMap, next.portalHostMap),
    multipath: shareList(prev.multipath, next.multipath, (m) => m.name),
    mounts: shareList(prev.mounts, next.mounts, (m) => String(m.mountId)),
    swaps: shareValue(prev.swaps, next.swaps),
    loops: shareValue(prev.loops, next.loops),
    // Spread first, so a field added to kubelet (pods) is never dropped here.
    kubelet: shareValue(prev.kubelet, {
      ...next.kubelet,
      volumes: shareList(prev.kubelet.volumes, next.kubelet.volumes, (v) => v.path),
      podVolumes: shareList(prev.kubelet.podVolumes, next.kubelet.podVolumes, (v) => v.path),
    }),
    nodeRecords: shareList(prev.nodeRecords, next.nodeRecords, (r) => r.path),
    ifaces: shareList(prev.ifaces, next.ifaces, (i) => i.path),
    problems: shareValue(prev.problems, next.problems),
  };
}
