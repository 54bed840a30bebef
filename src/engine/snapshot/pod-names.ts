import type { Host } from '../host/host.js';
import type { CsiVolume, KubeletVolume, PodName, PodRef, PodVolume, Session } from '../model.js';

/**
 * Pod names for the UIDs kubelet's dirs give (docs/status-schema.md#pod-names), read from two
 * places the node keeps without asking the API server:
 *
 * 1. kubelet's pod log dirs, `/var/log/pods/<namespace>_<name>_<uid>` (kubernetes
 *    pkg/kubelet/kuberuntime/helpers.go, BuildPodLogsDirectory): one listing names every pod with
 *    its namespace. Namespaces and names cannot hold `_` (DNS labels and subdomains), so the split
 *    is exact.
 * 2. For a UID without a log dir, the pod's own hosts file `<kubelet root>/pods/<uid>/etc-hosts`,
 *    which kubelet writes as "# Kubernetes-managed hosts file." plus the boilerplate and one line
 *    `<podIP>\t[<fqdn>\t]<hostname>` per pod IP, then any HostAliases after a comment (kubernetes
 *    pkg/kubelet/kubelet_pods.go, managedHostsFileContent). The hostname is the pod's name unless
 *    spec.hostname is set. A host-network pod's file is the node's own hosts file (header "(host
 *    network)") and names no pod: skipped.
 *
 * Only UIDs that use an iSCSI volume are looked up: one directory listing, plus one bounded read
 * per UID the listing did not name.
 */
const POD_LOGS_DIR = '/var/log/pods';

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** RFC 1123 label (namespace) and subdomain (pod name), as the API server validates them. */
const LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$/;
const MANAGED = '# Kubernetes-managed hosts file.';

/** `<namespace>_<name>_<uid>` → its parts, or undefined for any other name. */
export function parsePodLogDir(entry: string): { namespace: string; name: string; uid: string } | undefined {
  const parts = entry.split('_');
  if (parts.length !== 3) return undefined;
  const [namespace, name, uid] = parts as [string, string, string];
  if (!LABEL.test(namespace) || !SUBDOMAIN.test(name) || !UID.test(uid)) return undefined;
  return { namespace, name, uid };
}

/** The pod's hostname from kubelet's etc-hosts text, or undefined when the file is not kubelet's pod file. */
export function parseEtcHosts(text: string): string | undefined {
  const lines = text.split('\n');
  if (lines[0]?.trimEnd() !== MANAGED) return undefined;
  let hostname: string | undefined;
  for (const raw of lines.slice(1)) {
    const line = raw.trim();
    // Everything after this comment is HostAliases, not the pod.
    if (line.startsWith('# Entries added by HostAliases')) break;
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const last = fields[fields.length - 1]!;
    if (fields.length < 2 || last.startsWith('ip6-') || last === 'localhost') continue;
    if (SUBDOMAIN.test(last)) hostname = last;
  }
  return hostname;
}

/** Names for `uids` (those the node names; the rest are left out). */
export function readPodNames(
  host: Host,
  kubeletRoot: string,
  uids: Iterable<string>,
): Record<string, PodName> {
  const wanted = new Set([...uids].filter((u) => UID.test(u)));
  const out: Record<string, PodName> = {};
  if (wanted.size === 0) return out;
  for (const entry of host.readDir(POD_LOGS_DIR)) {
    const p = parsePodLogDir(entry);
    if (p && wanted.has(p.uid)) out[p.uid] = { namespace: p.namespace, name: p.name, source: 'pod-logs' };
  }
  const root = kubeletRoot.length > 1 ? kubeletRoot.replace(/\/+$/, '') : '';
  for (const uid of wanted) {
    if (out[uid]) continue;
    const text = host.readText(`${root}/pods/${uid}/etc-hosts`);
    const hostname = text === undefined ? undefined : parseEtcHosts(text);
    if (hostname !== undefined) out[uid] = { name: hostname, source: 'etc-hosts' };
  }
  return out;
}

/** A UID with the name the node gives it (none: the UID alone). */
function podRef(names: Readonly<Record<string, PodName>>, uid: string): PodRef {
  const p = names[uid];
  if (!p) return { uid };
  return p.namespace !== undefined ? { uid, namespace: p.namespace, name: p.name } : { uid, name: p.name };
}

/**
 * Puts the pods' names beside their UIDs wherever `status --json` lists a pod (sessions, global
 * dirs, pod volume dirs, CSI publish dirs), so a jq reader needs no lookup in `kubelet.pods`.
 * Sessions are this read's own objects (set in place); volumes, pod volumes and CSI volumes may be
 * shared with the previous read, so those that change are copied.
 */
export function addPodRefs(
  names: Readonly<Record<string, PodName>>,
  sessions: Session[],
  volumes: readonly KubeletVolume[],
  podVolumes: readonly PodVolume[],
  csiVolumes: readonly CsiVolume[],
): { volumes: KubeletVolume[]; podVolumes: PodVolume[]; csiVolumes: CsiVolume[] } {
  for (const s of sessions) if (s.pods.length > 0) s.podRefs = s.pods.map((u) => podRef(names, u));
  const named = (uid: string) => {
    const r = podRef(names, uid);
    return {
      ...(r.namespace !== undefined ? { podNamespace: r.namespace } : {}),
      ...(r.name !== undefined ? { podName: r.name } : {}),
    };
  };
  return {
    volumes: volumes.map((v) =>
      v.pods.length > 0 ? { ...v, podRefs: v.pods.map((u) => podRef(names, u)) } : v,
    ),
    podVolumes: podVolumes.map((pv) => (names[pv.podUid] ? { ...pv, ...named(pv.podUid) } : pv)),
    csiVolumes: csiVolumes.map((v) =>
      v.publish.some((p) => names[p.podUid])
        ? { ...v, publish: v.publish.map((p) => (names[p.podUid] ? { ...p, ...named(p.podUid) } : p)) }
        : v,
    ),
  };
}
