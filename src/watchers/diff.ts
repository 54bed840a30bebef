/**
 * What changed between two snapshots, as a SnapshotDiff and as human events. Objects are matched by
 * fingerprint (session key, LUN key, map name, mount id, host path), never by sid or sdX alone:
 * sids are not persistent (iscsiadm.8) and sd names are reused by the kernel. Each event describes
 * one transition between the two snapshots, so comparing each pair once never reports a change twice.
 */
import type {
  KubeletVolume,
  Mount,
  MultipathMap,
  NodeRecord,
  PortalOutage,
  ScsiDevice,
  Session,
  Snapshot,
} from '../engine/model.js';
import { deepEqual } from './share.js';
import type { EventDraft } from './store.js';
import type { SnapshotDiff } from './types.js';

export interface DiffResult {
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

/** Calls back for added, removed and kept-but-different items. */
function compare<T>(
  prev: Map<string, T>,
  next: Map<string, T>,
  on: { added(k: string, n: T): void; removed(k: string, p: T): void; changed(k: string, p: T, n: T): void },
): void {
  for (const [k, n] of next) {
    const p = prev.get(k);
    if (p === undefined) on.added(k, n);
    else if (p !== n && !deepEqual(p, n)) on.changed(k, p, n);
  }
  for (const [k, p] of prev) if (!next.has(k)) on.removed(k, p);
}

const sessionLabel = (s: Session) => `${s.targetIqn} @ ${s.portal}`;
const deviceLabel = (d: ScsiDevice) => d.name ?? `LUN ${d.lun} (${d.hctl})`;
const isRunning = (state: string | undefined) => state === undefined || state === 'running';
const volName = (v: KubeletVolume) => v.metadata?.VolName ?? v.path.slice(v.path.lastIndexOf('/') + 1);

function devicesOf(snap: Snapshot): Map<string, { device: ScsiDevice; session: Session }> {
  const out = new Map<string, { device: ScsiDevice; session: Session }>();
  for (const session of snap.sessions) {
    for (const device of session.devices) out.set(device.key, { device, session });
  }
  return out;
}

// --- event wording: one constructor per transition (probe-diff.ts publishes the same ones early) ---

/** A session's `state` moved: `session N p→n (iqn @ portal)`, warn unless now LOGGED_IN. */
export function sessionStateEvent(s: Session, from: string, to: string): EventDraft {
  return {
    kind: 'session',
    severity: to === 'LOGGED_IN' ? 'info' : 'warn',
    subject: s.key,
    message: `session ${s.sid} ${from}→${to} (${sessionLabel(s)})`,
  };
}

/** A disk's `state` moved: `sdX state p→n`, warn unless now running. */
export function deviceStateEvent(
  d: ScsiDevice,
  from: string | undefined,
  to: string | undefined,
): EventDraft {
  return {
    kind: 'device',
    severity: isRunning(to) ? 'info' : 'warn',
    subject: d.key,
    message: `${deviceLabel(d)} state ${from ?? '?'}→${to ?? '?'}`,
  };
}

/** Subject of portal events: the portal as the snapshot names it. */
const portalSubject = (portal: string) => `portal ${portal}`;

/** Every session of the node to a portal went down: the outage's own summary (warn, as a session FAILED is). */
export function portalDownEvent(o: PortalOutage): EventDraft {
  return { kind: 'portal', severity: 'warn', subject: portalSubject(o.portal), message: o.summary };
}

/** A portal that was down has a session up again, or its last down session is gone. */
export function portalUpEvent(o: PortalOutage, next: Snapshot): EventDraft {
  const up = next.sessions.filter((s) => s.portal === o.portal && s.state === 'LOGGED_IN').length;
  const message =
    up > 0
      ? `portal ${o.portal} up again: ${up} session${up === 1 ? '' : 's'} LOGGED_IN (down since ${o.firstSeenAt})`
      : `portal ${o.portal} no longer down: its sessions are gone (down since ${o.firstSeenAt})`;
  return { kind: 'portal', severity: 'info', subject: portalSubject(o.portal), message };
}

function diffOutages(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  const was = new Map(prev.outages.map((o) => [o.portal, o]));
  const is = new Map(next.outages.map((o) => [o.portal, o]));
  for (const [portal, o] of is) if (!was.has(portal)) events.push(portalDownEvent(o));
  for (const [portal, o] of was) if (!is.has(portal)) events.push(portalUpEvent(o, next));
}

function diffSessions(prev: Snapshot, next: Snapshot, diff: SnapshotDiff, events: EventDraft[]): void {
  const ev = (subject: string, severity: EventDraft['severity'], message: string) =>
    events.push({ kind: 'session', severity, subject, message });
  compare(
    byKey(prev.sessions, (s) => s.key),
    byKey(next.sessions, (s) => s.key),
    {
      added(k, s) {
        diff.sessionsAdded.push(k);
        ev(k, 'info', `session ${s.sid} appeared: ${sessionLabel(s)} (${s.iface}) ${s.state}`);
      },
      removed(k, s) {
        diff.sessionsRemoved.push(k);
        ev(k, 'info', `session ${s.sid} gone: ${sessionLabel(s)} (${s.iface})`);
      },
      changed(k, p, n) {
        diff.sessionsChanged.push(k);
        if (p.sid !== n.sid) ev(k, 'info', `session ${p.sid}→${n.sid} re-established: ${sessionLabel(n)}`);
        if (p.state !== n.state) events.push(sessionStateEvent(n, p.state, n.state));
      },
    },
  );
}

function diffDevices(prev: Snapshot, next: Snapshot, diff: SnapshotDiff, events: EventDraft[]): void {
  const ev = (subject: string, severity: EventDraft['severity'], message: string) =>
    events.push({ kind: 'device', severity, subject, message });
  compare(devicesOf(prev), devicesOf(next), {
    added(k, { device: d, session: s }) {
      diff.devicesAdded.push(k);
      ev(k, 'info', `${deviceLabel(d)} appeared (session ${s.sid} LUN ${d.lun})`);
    },
    removed(k, { device: d, session: s }) {
      diff.devicesRemoved.push(k);
      ev(k, 'info', `${deviceLabel(d)} gone (session ${s.sid} LUN ${d.lun})`);
    },
    changed(k, { device: p }, { device: n }) {
      if (p.name !== n.name && p.name && n.name) ev(k, 'info', `${p.name} is now ${n.name} (LUN ${n.lun})`);
      if (p.state !== n.state) events.push(deviceStateEvent(n, p.state, n.state));
    },
  });
}

function diffMultipath(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  const ev = (m: MultipathMap, severity: EventDraft['severity'], message: string) =>
    events.push({ kind: 'multipath', severity, subject: m.alias, message });
  compare(
    byKey(prev.multipath, (m) => m.name),
    byKey(next.multipath, (m) => m.name),
    {
      added: (_k, m) => ev(m, 'info', `multipath map ${m.alias} (${m.name}) appeared`),
      removed: (_k, m) => ev(m, 'info', `multipath map ${m.alias} (${m.name}) gone`),
      changed(_k, p, n) {
        for (const sd of n.failedSlaves) {
          if (!p.failedSlaves.includes(sd)) ev(n, 'warn', `path ${sd} of ${n.alias} failed`);
        }
        for (const sd of p.failedSlaves) {
          if (!n.failedSlaves.includes(sd) && n.slaves.includes(sd))
            ev(n, 'info', `path ${sd} of ${n.alias} restored`);
        }
        for (const sd of n.slaves)
          if (!p.slaves.includes(sd)) ev(n, 'info', `path ${sd} added to ${n.alias}`);
        for (const sd of p.slaves) if (!n.slaves.includes(sd)) ev(n, 'info', `path ${sd} left ${n.alias}`);
      },
    },
  );
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
  const ev = (m: Mount, message: string) =>
    events.push({ kind: 'mount', severity: 'info', subject: m.mountPoint, message });
  compare(
    byKey(prev.mounts, (m) => String(m.mountId)),
    byKey(next.mounts, (m) => String(m.mountId)),
    {
      added: (_k, m) => isRelevant(m) && ev(m, `mounted ${m.source} (${m.fsType}) on ${m.mountPoint}`),
      removed: (_k, m) => wasRelevant(m) && ev(m, `mount of ${m.mountPoint} gone`),
      changed: () => undefined,
    },
  );
}

function diffKubelet(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  const ev = (subject: string, severity: EventDraft['severity'], message: string) =>
    events.push({ kind: 'kubelet', severity, subject, message });
  // iscsi.json is hidden (not gone) while the global dir is mounted: only file-level transitions count.
  const jsonEvents = (p: KubeletVolume | undefined, n: KubeletVolume | undefined) => {
    const had = p?.metadataSource === 'iscsi.json';
    const has = n?.metadataSource === 'iscsi.json';
    // The name comes from whichever side could read the file (the removed one for a removal).
    const v = (had ? p : n) ?? (n ?? p)!;
    const file = `${v.path}/iscsi.json`;
    const name = volName(v);
    if (!had && has && p?.metadataSource !== 'hidden') ev(file, 'info', `iscsi.json written for ${name}`);
    if (had && !has && n?.metadataSource !== 'hidden') ev(file, 'warn', `iscsi.json removed for ${name}`);
    if (had && has && !deepEqual(p?.metadata, n?.metadata))
      ev(file, 'info', `iscsi.json changed for ${name}`);
  };
  compare(
    byKey(prev.kubelet.volumes, (v) => v.path),
    byKey(next.kubelet.volumes, (v) => v.path),
    {
      added(k, v) {
        ev(k, 'info', `kubelet volume dir added: ${k}`);
        jsonEvents(undefined, v);
      },
      removed(k, v) {
        jsonEvents(v, undefined);
        ev(k, 'info', `kubelet volume dir removed: ${k}`);
      },
      changed: (_k, p, n) => jsonEvents(p, n),
    },
  );
  compare(
    byKey(prev.kubelet.podVolumes, (v) => v.path),
    byKey(next.kubelet.podVolumes, (v) => v.path),
    {
      added: (k, v) => ev(k, 'info', `pod ${v.podUid} volume ${v.volName} added`),
      removed: (k, v) => ev(k, 'info', `pod ${v.podUid} volume ${v.volName} removed`),
      changed: () => undefined,
    },
  );
}

function diffRecords(prev: Snapshot, next: Snapshot, events: EventDraft[]): void {
  const label = (r: NodeRecord) => `${r.targetIqn} @ ${r.portal} (${r.iface})`;
  const ev = (r: NodeRecord, message: string) =>
    events.push({ kind: 'record', severity: 'info', subject: r.path, message });
  compare(
    byKey(prev.nodeRecords, (r) => r.path),
    byKey(next.nodeRecords, (r) => r.path),
    {
      added: (_k, r) => ev(r, `node record added: ${label(r)}`),
      removed: (_k, r) => ev(r, `node record removed: ${label(r)}`),
      changed(_k, p, n) {
        if (p.startup !== n.startup)
          ev(n, `node record ${label(n)}: startup ${p.startup ?? '?'}→${n.startup ?? '?'}`);
        else ev(n, `node record changed: ${label(n)}`);
      },
    },
  );
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
  diffRecords(prev, next, events);
  return { diff, events };
}
