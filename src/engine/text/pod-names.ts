/**
 * How a pod is named to a person, and the exact kubectl commands that act on it: one home for
 * refusals, hints, blast radius, the console's detail and banner, and `status`. The names come from
 * the snapshot's `kubelet.pods` (src/engine/snapshot/pod-names.ts reads them; both sources are
 * validated as DNS names there, so a name is safe inside a shell line as it is).
 */
import type { PodName } from '../model.js';

/** UID → name, as `Snapshot.kubelet.pods` holds it (absent when the node named no pod). */
export type PodNames = Readonly<Record<string, PodName>> | undefined;

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A pod as a person reads it: `namespace/name`; `name (namespace unknown)` when only the pod's
 * hostname file named it; the UID with "(name unknown)" when the node names it nowhere.
 */
export function podLabel(pods: PodNames, uid: string): string {
  const p = pods?.[uid];
  if (!p) return `${uid} (name unknown)`;
  return p.namespace !== undefined ? `${p.namespace}/${p.name}` : `${p.name} (namespace unknown)`;
}

/** `pod db/postgres-0`, `pods db/postgres-0, streaming/kafka-0`: a list with its noun. */
export function podsPhrase(pods: PodNames, uids: readonly string[]): string {
  const labels = [...new Set(uids)].map((u) => podLabel(pods, u));
  return `${labels.length === 1 ? 'pod' : 'pods'} ${labels.join(', ')}`;
}

/**
 * The commands that delete these pods, exact and in the order given: one
 * `kubectl -n <namespace> delete pod <name>…` per namespace; for a pod whose namespace is not known
 * the command that finds it (by name, or by UID), since a delete without the namespace would act
 * on whatever pod of that name lives in the default namespace.
 */
export function kubectlDeletePods(pods: PodNames, uids: readonly string[]): string[] {
  const byNamespace = new Map<string, string[]>();
  const finds: string[] = [];
  for (const uid of new Set(uids)) {
    const p = pods?.[uid];
    if (p?.namespace !== undefined) {
      const names = byNamespace.get(p.namespace) ?? [];
      if (!names.includes(p.name)) names.push(p.name);
      byNamespace.set(p.namespace, names);
    } else if (p) {
      finds.push(`kubectl get pods -A --field-selector metadata.name=${p.name}`);
    } else if (UID.test(uid)) {
      finds.push(
        `kubectl get pods -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,UID:.metadata.uid | grep ${uid}`,
      );
    }
  }
  const deletes = [...byNamespace].map(([ns, names]) => `kubectl -n ${ns} delete pod ${names.join(' ')}`);
  return [...deletes, ...finds];
}
