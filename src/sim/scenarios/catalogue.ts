/**
 * The `--demo` scenarios by name, description and sysfs profile: the one list. It imports nothing,
 * so `--help` and the CLI's check of `--demo NAME` read it without loading the simulator;
 * index.ts joins each name to the function that builds it (a name without one does not compile).
 */
export const SCENARIO_CATALOGUE = [
  {
    name: 'incident',
    description:
      'the morning after: in-use volumes, a stale session, an orphaned kubelet dir, a foreign mount, a degraded multipath map, a target down',
  },
  { name: 'healthy', description: 'a few in-use volumes, one multipath, one block-mode volume' },
  {
    name: 'outage',
    description:
      'one storage controller down: every session of 10.0.0.10:3260 failed at once; one of them no pod uses (its cleanup is refused as an outage, and can be overridden)',
  },
  {
    name: 'degraded',
    description:
      'after an outage: a volume on one of its two paths, a LUN expected with no device, a session stuck FAILED while its portal answers, a filesystem forced read-only',
  },
  { name: 'empty', description: 'nothing logged in; targets to attach (loopback, IPv6, CHAP)' },
  {
    name: 'csi',
    description:
      'a CSI node: csi-driver-iscsi (mounted, unmounted but claimed, leftover), Trident tracking files, Longhorn sessions, democratic-csi zombies',
  },
  {
    name: 'scale',
    description:
      '1,000 sessions x 4 LUNs, half multipath, mid-incident: a third array down (8 sessions), a stuck session, two maps on one path, 3 stale, 1 orphaned; the rest in use',
    profile: 'lean',
  },
] as const satisfies readonly { name: string; description: string; profile?: 'full' | 'lean' }[];

export type ScenarioName = (typeof SCENARIO_CATALOGUE)[number]['name'];

/** The scenario `--demo` without a name runs. */
export const DEFAULT_SCENARIO: ScenarioName = 'incident';
