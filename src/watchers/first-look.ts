/**
 * The console's first look at a node: the session list with each session's identity and state,
 * straight from sysfs, in a few reads per session (~40 ms at 1,000 sessions on tmpfs), so the
 * first frame can show the node while the full snapshot (~2 s at 1,000 sessions × 4 LUNs: devices,
 * multipath, mounts, kubelet dirs, verdicts) is read. bench/README.md: first frame ≤ 500 ms.
 *
 * The result is a Snapshot marked `partial`, its sessions `pending`: verdict, health, devices and
 * kubelet links are not read, so nothing may be planned or decided from it (the console refuses
 * actions until the full read replaces it, and shows it as loading). A session's identity comes
 * from the full read's own reader (readSessionIdentity, src/engine/snapshot/sessions.ts), so the
 * session keys match the full read's and the cursor stays on the same row when it lands.
 */
import type { Host } from '../engine/host/host.js';
import { SCHEMA_VERSION, type Session, type Snapshot, sessionKey } from '../engine/model.js';
import { normalizeKubeletRoot } from '../engine/snapshot/assemble.js';
import { ISCSI_SESSION_CLASS, isSessionName, readInitiatorName } from '../engine/snapshot/index.js';
import { connectionPortal, readConnection, readSessionIdentity } from '../engine/snapshot/sessions.js';
import { isoTime } from '../engine/text/time.js';

/** `../../devices/platform/host3/session3/iscsi_session/session3` → 3 (captures single-sysfs.json). */
const SESSION_HOST = /\/host(\d+)\/session\d+\//;

/**
 * One session: its identity as the full read takes it (readSessionIdentity) and its first
 * connection's portal (iscsid always opens connection 0). Undefined when it vanished mid-read (a logout).
 */
function lookAtSession(host: Host, name: string): Session | undefined {
  const id = readSessionIdentity(host, name, []);
  if (!id) return undefined;
  const { sid, targetIqn, iface, state } = id;
  const portal = connectionPortal(readConnection(host, id.sessDir, `connection${sid}:0`));
  const hostNumber = SESSION_HOST.exec(id.link)?.[1];
  const s: Session = {
    sid,
    name,
    targetIqn,
    portal,
    tpgt: -1,
    iface,
    state,
    connections: [],
    devices: [],
    // Placeholders the type requires; `pending` says they are not known (the UI shows '…').
    verdict: 'foreign',
    health: 'ok',
    reasons: [],
    kubeletBusy: false,
    kubeletVolumes: [],
    pods: [],
    key: sessionKey(targetIqn, portal, iface),
    pending: true,
  };
  if (hostNumber !== undefined) s.hostNumber = Number(hostNumber);
  return s;
}

interface FirstLookOptions {
  kubeletRoot: string;
  /**
   * Sessions to read, lowest sids first (the Sessions view's order): what the first frame can
   * show. Six reads a session cost ~0.1 ms each, ~0.15 s at 1,000 sessions, a third of the
   * first-frame budget, for rows nobody sees before the full read lands. Default: all.
   */
  limit?: number;
}

/** The first look: a partial Snapshot (see the file comment). Never throws for node state. */
export function firstLook(host: Host, options: FirstLookOptions): Snapshot {
  const started = performance.now();
  const kubeletRoot = normalizeKubeletRoot(options.kubeletRoot);
  const names = host.readDir(ISCSI_SESSION_CLASS).filter(isSessionName);
  const sids = names.map((n) => Number(n.slice('session'.length))).sort((a, b) => a - b);
  const sessions: Session[] = [];
  for (const sid of sids.slice(0, options.limit ?? sids.length)) {
    const s = lookAtSession(host, `session${sid}`);
    if (s) sessions.push(s);
  }
  const snapshot: Snapshot = {
    schemaVersion: SCHEMA_VERSION,
    takenAt: isoTime(host.now()),
    readMs: 0,
    node: {
      hostname: host.hostname(),
      root: host.root,
      kind: host.kind,
      kubeletRoot,
      iscsiLoaded: host.lstat('/sys/class/iscsi_host') !== undefined,
    },
    sessions,
    portalHostMap: {},
    // Not judged from a part of the sessions: a portal's other sessions may be up (the full read says).
    outages: [],
    multipath: [],
    mounts: [],
    swaps: [],
    loops: {},
    kubelet: { root: kubeletRoot, volumes: [], podVolumes: [] },
    nodeRecords: [],
    ifaces: [],
    problems: [],
    partial: { sessionsTotal: names.length },
  };
  const initiatorName = readInitiatorName(host);
  if (initiatorName !== undefined) snapshot.node.initiatorName = initiatorName;
  snapshot.readMs = Math.round((performance.now() - started) * 100) / 100;
  return snapshot;
}
