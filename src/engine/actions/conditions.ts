/**
 * Preconditions and expectations, evaluated against a fresh snapshot (and the Host for paths).
 * One table for both: apply checks a step's preconditions right before it and the plan's
 * expectations after the last step, always by fingerprint — a LUN that came back as another sdX
 * is still the same LUN, and an sdX that now names another LUN is not.
 */
import type { Host } from '../host/host.js';
import type { CsiVolume, Snapshot } from '../model.js';
import { csiVolumeMounted } from '../snapshot/csi/describe.js';
import { isSessionDown } from '../snapshot/outages.js';
import { stuckProbeOf } from '../snapshot/stuck.js';
import { fingerprintText } from '../text/fingerprint.js';
import { podsPhrase } from '../text/pod-names.js';
import { podMountsOn } from './kubelet-mounts.js';
import {
  csiVolumeByPath,
  deviceByKey,
  deviceUse,
  mapByWwid,
  mapUse,
  podMountsOf,
  recordByKey,
  sessionByKey,
} from './lookup.js';
import type { Precondition } from './types.js';

interface CheckResult {
  ok: boolean;
  /** What was found when not ok. */
  detail: string;
}

const ok: CheckResult = { ok: true, detail: '' };
const fail = (detail: string): CheckResult => ({ ok: false, detail });

type Checker = (c: Precondition, s: Snapshot, host: Host) => CheckResult;

/**
 * A check on the object the condition's subject names: `missing` when the snapshot has none (`ok`
 * where a vanished object is what the check wants), else `found` on it.
 */
function about<T>(
  find: (s: Snapshot, key: string) => T | undefined,
  missing: (c: Precondition) => CheckResult,
  found: (x: T, c: Precondition, s: Snapshot) => CheckResult,
): Checker {
  return (c, s) => {
    const x = find(s, c.subject);
    return x === undefined ? missing(c) : found(x, c, s);
  };
}

/** What a check reports when the object it must find is not there. */
const gone = {
  session: (c: Precondition) => fail(`session ${fingerprintText(c.subject)} is gone`),
  device: (c: Precondition) => fail(`no device for ${fingerprintText(c.subject)}`),
  map: (c: Precondition) => fail(`map ${c.subject} is gone`),
  record: (c: Precondition) => fail(`no node record ${fingerprintText(c.subject)}`),
};

/** A check whose object may vanish: gone is as good as checked (absent, unused, not claimed). */
const vanished = (): CheckResult => ok;

/** `ok` when nothing uses the object, else everything that does. */
const unused = (why: readonly string[]): CheckResult => (why.length === 0 ? ok : fail(why.join('; ')));

const CHECKS: Record<string, Checker> = {
  'write-enabled': () => ok,
  'session-present': about(sessionByKey, gone.session, () => ok),
  'session-absent': about(sessionByKey, vanished, (x, c) =>
    fail(`session ${x.sid} (${fingerprintText(c.subject)}) still exists`),
  ),
  /** The fingerprint still names the same sid (sids are reused after a re-login). */
  'session-is': about(sessionByKey, gone.session, (x, c) =>
    String(x.sid) === c.value
      ? ok
      : fail(`${fingerprintText(c.subject)} is now session ${x.sid}, not ${c.value}`),
  ),
  'session-logged-in': about(sessionByKey, gone.session, (x) =>
    x.state === 'LOGGED_IN' ? ok : fail(`session ${x.sid} is ${x.state}`),
  ),
  // A logout the planner allowed only because the session was stuck (cleanup.ts addStuckNotes):
  // it is fine while the session is up or still stuck; a portal gone silent is an outage again.
  'session-not-outage': about(sessionByKey, vanished, (x, _c, s) =>
    !isSessionDown(x) || stuckProbeOf(s, x)
      ? ok
      : fail(`session ${x.sid} is ${x.state} and its portal ${x.portal} no longer answers the probe`),
  ),
  'session-not-in-use': about(sessionByKey, vanished, (x, _c, s) =>
    x.pods.length > 0 ? fail(`session ${x.sid} is now in use by ${podsPhrase(s.kubelet.pods, x.pods)}`) : ok,
  ),
  'device-present': about(deviceByKey, gone.device, () => ok),
  'device-absent': about(deviceByKey, vanished, (d, c) =>
    fail(`${d.device.name ?? d.device.hctl} (${fingerprintText(c.subject)}) still exists`),
  ),
  /** The fingerprint still names the same kernel device: never act on an sdX that moved. */
  'device-is': about(deviceByKey, gone.device, (d, c) => {
    const name = d.device.name ?? d.device.hctl;
    return name === c.value || d.device.hctl === c.value
      ? ok
      : fail(`${fingerprintText(c.subject)} is now ${name}, not ${c.value}`);
  }),
  'device-unused': about(deviceByKey, vanished, (d, _c, s) => unused(deviceUse(s, d.device))),
  'device-unmounted': about(deviceByKey, vanished, (d, _c, s) =>
    unused(deviceUse(s, d.device, d.device.holders)),
  ),
  'device-state': about(deviceByKey, gone.device, (d, c) =>
    d.device.state === c.value ? ok : fail(`${d.device.name} is ${d.device.state ?? 'unknown'}`),
  ),
  'map-present': about(mapByWwid, gone.map, () => ok),
  'map-absent': about(mapByWwid, vanished, (m) => fail(`map ${m.name} (${m.alias}) still exists`)),
  'map-is': about(mapByWwid, gone.map, (m, c) =>
    m.name === c.value || m.alias === c.value ? ok : fail(`map ${c.subject} is now ${m.name}`),
  ),
  'map-unused': about(mapByWwid, vanished, (m, _c, s) => unused(mapUse(s, m))),
  mounted: (c, s) =>
    s.mounts.some((m) => m.mountPoint === c.subject) ? ok : fail(`${c.subject} is not mounted`),
  'not-mounted': (c, s) =>
    s.mounts.some((m) => m.mountPoint === c.subject) ? fail(`${c.subject} is mounted`) : ok,
  'no-pod-mounts': (c, s) => {
    // in-tree binds of the global dir, and the publish mounts of a CSI staging path (kubelet-mounts.ts)
    const pods = [...podMountsOf(s, c.subject), ...podMountsOn(s, c.subject)].filter(
      (p, i, all) => all.findIndex((x) => x.path === p.path) === i,
    );
    return pods.length === 0 ? ok : fail(`pod bind mounts remain: ${pods.map((p) => p.path).join(', ')}`);
  },
  /** A volume's metadata still lists exactly these portals (`value`: comma-separated, expected.ts order). */
  'volume-expects': (c, s) => {
    const v = s.expected?.volumes.find((x) => x.path === c.subject);
    if (!v) return fail(`${c.subject} expects no portals any more`);
    const now = v.expectedPortals.join(',');
    return now === c.value ? ok : fail(`it now expects ${now || 'no portal'}`);
  },
  /** No session to the target at the portal, by any iface (`subject`: `iqn|portal`; kubelet's portal→host map ignores the iface). */
  'target-portal-absent': (c, s) => {
    const x = s.sessions.find((z) => `${z.targetIqn}|${z.portal}` === c.subject);
    return x ? fail(`session ${x.sid} (${x.iface}) is logged in there now`) : ok;
  },
  /**
   * A volume runs on `value` paths: that many expected portals with the LUN on a logged-in session
   * and, for more than one, every one of them in one multipath map.
   */
  'volume-paths': (c, s) => {
    const v = s.expected?.volumes.find((x) => x.path === c.subject);
    if (!v) return fail(`${c.subject} expects nothing any more`);
    const want = Number(c.value);
    if (v.paths < want) return fail(`${v.name} has ${v.paths} of ${want} paths`);
    if (want <= 1) return ok;
    for (const l of v.expectedLuns) {
      const devs = l.paths.map((p) => p.device).filter((d): d is string => d !== undefined);
      const m = s.multipath.find((x) => x.name === l.device);
      if (!m) return fail(`LUN ${l.lun} runs on ${devs.join(', ')} with no multipath map`);
      const out = devs.filter((d) => !m.slaves.includes(d));
      if (out.length > 0) return fail(`${out.join(', ')} not in map ${m.alias} (${m.slaves.join(', ')})`);
      if (m.slaves.length < want) return fail(`map ${m.alias} has ${m.slaves.length} of ${want} paths`);
    }
    return ok;
  },
  'record-present': about(recordByKey, gone.record, () => ok),
  'record-absent': about(recordByKey, vanished, (_r, c) =>
    fail(`node record ${fingerprintText(c.subject)} still exists`),
  ),
  'record-startup': about(recordByKey, gone.record, (r, c) =>
    r.startup === c.value ? ok : fail(`node.startup is ${r.startup ?? 'unknown'}`),
  ),
  'iface-absent': (c, s) =>
    s.ifaces.some((i) => i.name === c.subject) ? fail(`iface ${c.subject} still exists`) : ok,
  'path-present': (c, _s, h) => (h.lstat(c.subject) ? ok : fail(`${c.subject} does not exist`)),
  'path-absent': (c, _s, h) => (h.lstat(c.subject) ? fail(`${c.subject} still exists`) : ok),
  'loop-backs': (c, s) =>
    s.loops[c.subject] === c.value
      ? ok
      : fail(`${c.subject} is backed by ${s.loops[c.subject] ?? 'nothing'}`),
  'loop-not-backing': (c, s) =>
    s.loops[c.subject] === c.value ? fail(`${c.subject} is still backed by ${c.value}`) : ok,
  /** What a bind-mount target becomes after its unmount: unlinking it cannot lose data. */
  'empty-file': (c, _s, h) => {
    const kind = h.lstat(c.subject);
    if (kind === undefined) return ok;
    if (kind !== 'file') return fail(`${c.subject} is a ${kind}, not a file`);
    const text = h.readText(c.subject);
    return text === '' ? ok : fail(`${c.subject} is not empty`);
  },
  /** A kubelet dir holds nothing but (maybe) iscsi.json: rmdir after unlinking it cannot lose data. */
  'dir-only-metadata': (c, _s, h) => holdsOnly(h, c.subject, ['iscsi.json']),
  /** A dir holds nothing but the names in `value` (comma-separated; empty: nothing at all). */
  'dir-holds-only': (c, _s, h) => holdsOnly(h, c.subject, (c.value ?? '').split(',').filter(Boolean)),
  /** The CSI volume at this path is still the one planned for (`driver|handle[|pv]` from vol_data.json). */
  'csi-volume-is': about(csiVolumeByPath, vanished, (v, c) => {
    const fp = csiVolumeFingerprint(v, (c.value ?? '').split('|').length);
    return fp === c.value ? ok : fail(`${c.subject} now belongs to ${fp}, not ${c.value}`);
  }),
  /**
   * Nothing mounts the CSI volume at this path, and it claims no session but those planned with
   * (`value`: sids, comma-separated; empty: none) — a driver that logged in since is not overridden.
   */
  'csi-volume-claims-only': about(csiVolumeByPath, vanished, (v, c) => {
    if (csiVolumeMounted(v)) return fail(`a path of the CSI volume at ${c.subject} is mounted`);
    const planned = (c.value ?? '').split(',').filter(Boolean);
    const now = v.sessions.filter((sid) => !planned.includes(String(sid)));
    return now.length === 0 ? ok : fail(`it now claims session(s) ${now.join(', ')}`);
  }),
};

function holdsOnly(h: Host, dir: string, allowed: readonly string[]): CheckResult {
  if (!h.lstat(dir)) return ok;
  const extra = h.readDir(dir).filter((n) => !allowed.includes(n));
  return extra.length === 0 ? ok : fail(`${dir} still contains ${extra.join(', ')}`);
}

/** `driver|handle` (a staging dir's vol_data.json names no PV), or `driver|handle|pv` with `parts` 3. */
export function csiVolumeFingerprint(
  v: Pick<CsiVolume, 'driver' | 'volumeHandle' | 'pv'>,
  parts: number,
): string {
  const fp = [v.driver, v.volumeHandle ?? ''];
  if (parts >= 3) fp.push(v.pv ?? '');
  return fp.join('|');
}

/** Evaluates one condition; unknown ids fail closed. */
export function check(c: Precondition, s: Snapshot, host: Host): CheckResult {
  const fn = CHECKS[c.id];
  return fn ? fn(c, s, host) : fail(`unknown precondition ${c.id}`);
}

/** Evaluates all; returns the failures as "text: detail". */
export function failures(
  cs: readonly Precondition[] | undefined,
  s: Snapshot,
  host: Host,
  form: 'with-text' | 'detail-only' = 'with-text',
): string[] {
  const out: string[] = [];
  for (const c of cs ?? []) {
    const r = check(c, s, host);
    if (!r.ok) out.push(form === 'with-text' ? `${c.text}: ${r.detail}` : r.detail);
  }
  return out;
}
