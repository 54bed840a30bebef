/** Pod names and the kubectl commands hints carry: expected texts written by hand. */
import { describe, expect, it } from 'vitest';
import { kubectlDeletePods, podLabel, podsPhrase } from '../../src/engine/text/pod-names.js';

const A = '83424ecb-4fb3-4d5b-8904-a904f9328342';
const B = 'd79cd67c-d174-47bc-820a-d20a890fd79c';
const C = 'd4999244-f8ec-4504-84fd-84fd97e7d499';
const D = '09f1aadf-0000-4000-8000-000000000001';
const E = '09f1aadf-0000-4000-8000-000000000002';
const pods = {
  [A]: { namespace: 'db', name: 'postgres-0', source: 'pod-logs' as const },
  [B]: { namespace: 'db', name: 'postgres-1', source: 'pod-logs' as const },
  [C]: { namespace: 'monitoring', name: 'prometheus-0', source: 'pod-logs' as const },
  [D]: { name: 'worker-3', source: 'etc-hosts' as const },
};

describe('pod names for people', () => {
  it('names a pod namespace/name, says when the namespace or the name is unknown', () => {
    expect(podLabel(pods, A)).toBe('db/postgres-0');
    expect(podLabel(pods, D)).toBe('worker-3 (namespace unknown)');
    expect(podLabel(pods, E)).toBe('09f1aadf-0000-4000-8000-000000000002 (name unknown)');
    expect(podLabel(undefined, A)).toBe('83424ecb-4fb3-4d5b-8904-a904f9328342 (name unknown)');
  });

  it('lists pods with their noun, once each', () => {
    expect(podsPhrase(pods, [A])).toBe('pod db/postgres-0');
    expect(podsPhrase(pods, [A, C, A])).toBe('pods db/postgres-0, monitoring/prometheus-0');
  });

  it('gives one kubectl delete per namespace, and a find command where the namespace is unknown', () => {
    expect(kubectlDeletePods(pods, [A])).toEqual(['kubectl -n db delete pod postgres-0']);
    expect(kubectlDeletePods(pods, [A, C, B])).toEqual([
      'kubectl -n db delete pod postgres-0 postgres-1',
      'kubectl -n monitoring delete pod prometheus-0',
    ]);
    expect(kubectlDeletePods(pods, [D, E])).toEqual([
      'kubectl get pods -A --field-selector metadata.name=worker-3',
      'kubectl get pods -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,UID:.metadata.uid | grep 09f1aadf-0000-4000-8000-000000000002',
    ]);
    // A pod dir whose name is not a UID gives no command: nothing from the node goes into a shell line unchecked.
    expect(kubectlDeletePods(pods, ['x; rm -rf /'])).toEqual([]);
  });
});
