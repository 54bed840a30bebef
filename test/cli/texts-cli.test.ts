/**
 * The CLI's texts for people and for jq, on `--demo incident` (src/sim/scenarios/incident.ts):
 * pods by namespace/name beside their UIDs in `status --json`, names in `status` text, the
 * cleanup dry run's blast radius in words and its steps without kubelet internals. Expected values
 * are the scenario's pods, written by hand.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Snapshot } from '../../src/engine/model.js';
import { captureOutput } from '../helpers/capture-output.js';

const POSTGRES = { uid: '83424ecb-4fb3-4d5b-8904-a904f9328342', namespace: 'db', name: 'postgres-0' };
const KAFKA = { uid: 'd79cd67c-d174-47bc-820a-d20a890fd79c', namespace: 'streaming', name: 'kafka-0' };
const PROMETHEUS = {
  uid: 'd4999244-f8ec-4504-84fd-84fd97e7d499',
  namespace: 'monitoring',
  name: 'prometheus-0',
};

describe('CLI texts', () => {
  it('status --json names every pod beside its UID, and keeps pods as UIDs', async () => {
    const o = captureOutput();
    expect(await main(['status', '--json', '--demo', 'incident'], o)).toBe(0);
    const snap = JSON.parse(o.out) as Snapshot;
    const bySid = (sid: number) => snap.sessions.find((s) => s.sid === sid)!;
    expect(bySid(1).pods).toEqual([POSTGRES.uid]);
    expect(bySid(1).podRefs).toEqual([POSTGRES]);
    expect(bySid(2).podRefs).toEqual([KAFKA]);
    expect(bySid(3).podRefs).toEqual([KAFKA]);
    expect(bySid(7).podRefs).toEqual([PROMETHEUS]);
    // No pod, no list: the stale session 4 and the orphaned 5.
    expect(bySid(4).podRefs).toBeUndefined();
    expect(bySid(5).podRefs).toBeUndefined();
    const vol = snap.kubelet.volumes.find((v) => v.path.endsWith('postgres-data-lun-1'))!;
    expect(vol.podRefs).toEqual([POSTGRES]);
    expect(
      snap.kubelet.podVolumes
        .map((p) => [p.podUid, p.podNamespace, p.podName])
        .sort((a, b) => a[1]!.localeCompare(b[1]!)),
    ).toEqual([
      [POSTGRES.uid, 'db', 'postgres-0'],
      [PROMETHEUS.uid, 'monitoring', 'prometheus-0'],
      [KAFKA.uid, 'streaming', 'kafka-0'],
    ]);
  });

  it('status text names the pods of kubelet volumes and speaks no kubelet function names', async () => {
    const o = captureOutput();
    expect(await main(['status', '--demo', 'incident', '--no-color'], o)).toBe(0);
    const kube = o.out.slice(o.out.indexOf('KUBELET VOLUMES'), o.out.indexOf('POD VOLUMES'));
    expect(kube).toMatch(/postgres-data-lun-1 +hidden +yes +1 +db\/postgres-0/);
    expect(kube).toMatch(/kafka-data-lun-1 +hidden +yes +2,3 +streaming\/kafka-0/);
    expect(kube).not.toContain(POSTGRES.uid);
    expect(o.out).not.toContain('isSessionBusy');
    expect(o.out).toContain('kubelet logs this session out when a volume on it detaches');
  });

  it('cleanup --dry-run of the stale session: blast radius in words, steps without internals', async () => {
    const o = captureOutput();
    o.columns = 200; // the words, unwrapped (help-and-plans tests the wrapping to the terminal)
    await main(['cleanup', '4', '--dry-run', '--demo', 'incident', '--write'], o);
    expect(o.out).toContain('sessions (1): 4 iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default)');
    expect(o.out).toContain(
      'devices (1): sdd (iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default) LUN 1)',
    );
    expect(o.out).toContain('node records (1): iqn.2026-01.lab.example:old-logs @ 10.0.0.10:3260 (default)');
    expect(o.out).toContain(
      '      delete the node record so iscsid does not log in again at boot   [ok if already done]',
    );
    expect(o.out).not.toMatch(/\|10\.0\.0\.10:3260\||detachISCSIDisk|ok exit|kubernetes#/);
  });

  it('logout --dry-run of an in-use session names the pod and the kubectl command', async () => {
    const o = captureOutput();
    o.columns = 200; // the words, unwrapped (help-and-plans tests the wrapping to the terminal)
    expect(await main(['logout', '2', '--dry-run', '--demo', 'incident', '--write'], o)).toBe(3);
    expect(o.out).toContain('[in-use] session 2 (10.0.0.10:3260) is in use by pod streaming/kafka-0');
    expect(o.out).toContain(
      '    hint: delete the pod first; kubelet logs out by itself when the last volume of the target goes\n      $ kubectl -n streaming delete pod kafka-0\n',
    );
    expect(o.out).toContain('pods (1): streaming/kafka-0');
  });
});
