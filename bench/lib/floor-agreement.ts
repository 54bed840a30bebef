import type { Snapshot } from '../../src/engine/model.js';
import type { FloorFacts } from './independent-floor.js';

/**
 * Equal work on both sides of the floor ratio: the independent floor must list the same sessions,
 * LUNs, disks, maps and mount points as the snapshot (each compared as a set of identities), or
 * the ratio is not given. Returns what differs, empty when they agree.
 */
export function floorDisagreements(snap: Snapshot, floor: FloorFacts): string[] {
  const out: string[] = [];
  const compare = (what: string, a: Iterable<string>, b: Iterable<string>) => {
    const sa = new Set(a);
    const sb = new Set(b);
    const onlySnap = [...sa].filter((x) => !sb.has(x));
    const onlyFloor = [...sb].filter((x) => !sa.has(x));
    if (onlySnap.length || onlyFloor.length)
      out.push(
        `${what}: ${onlySnap.length} only in the snapshot (${onlySnap.slice(0, 2).join(', ')}), ${onlyFloor.length} only in the floor (${onlyFloor.slice(0, 2).join(', ')})`,
      );
  };
  compare(
    'sessions',
    snap.sessions.map((s) => `${s.sid}|${s.targetIqn}|${s.state}|${s.portal}`),
    floor.sessions.map((s) => `${s.sid}|${s.target}|${s.state}|${s.portal}`),
  );
  compare(
    'LUNs',
    snap.sessions.flatMap((s) => s.devices.map((d) => `${d.hctl}|${d.name ?? ''}|${d.state ?? ''}`)),
    floor.sessions.flatMap((s) => s.luns.map((l) => `${l.hctl}|${l.disk ?? ''}|${l.state}`)),
  );
  const iscsiDisks = new Set(floor.sessions.flatMap((s) => s.luns.flatMap((l) => (l.disk ? [l.disk] : []))));
  compare(
    'maps',
    snap.multipath
      .filter((m) => m.slaves.some((d) => iscsiDisks.has(d)))
      .map((m) => `${m.name}|${m.alias}|${[...m.slaves].sort().join(',')}`),
    floor.maps.map((m) => `${m.name}|${m.alias}|${[...m.members].sort().join(',')}`),
  );
  compare(
    'mount points',
    [
      ...snap.sessions.flatMap((s) => s.devices.flatMap((d) => d.mountpoints)),
      ...snap.multipath.flatMap((m) => m.mountpoints),
    ],
    Object.values(floor.mounts).flat(),
  );
  return out;
}
