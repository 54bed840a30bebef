import type { Simulator } from '../simulator.js';
import { csiScenario } from './csi.js';
import { degraded } from './degraded.js';
import { empty } from './empty.js';
import { healthy } from './healthy.js';
import { incident } from './incident.js';
import { outage } from './outage.js';
import { scale } from './scale.js';

export interface ScenarioDef {
  name: string;
  description: string;
  build: (sim: Simulator) => Promise<void>;
  /** sysfs detail the scenario is materialised with (default full). */
  profile?: 'full' | 'lean';
}

/** Every `--demo` scenario, the default (incident) first. */
export const SCENARIO_DEFS: readonly ScenarioDef[] = [
  {
    name: 'incident',
    description:
      'the morning after: in-use volumes, a stale session, an orphaned kubelet dir, a foreign mount, a degraded multipath map, a target down',
    build: incident,
  },
  {
    name: 'healthy',
    description: 'a few in-use volumes, one multipath, one block-mode volume',
    build: healthy,
  },
  {
    name: 'outage',
    description: 'one storage controller down: every session of 10.0.0.10:3260 failed at once',
    build: outage,
  },
  {
    name: 'degraded',
    description:
      'after an outage: a volume on one of its two paths, a LUN expected with no device, a session stuck FAILED while its portal answers, a filesystem forced read-only',
    build: degraded,
  },
  { name: 'empty', description: 'nothing logged in; targets to attach (loopback, IPv6, CHAP)', build: empty },
  {
    name: 'csi',
    description:
      'a CSI node: csi-driver-iscsi (mounted, unmounted but claimed, leftover), Trident tracking files, Longhorn sessions, democratic-csi zombies',
    build: csiScenario,
  },
  { name: 'scale', description: '1,000 sessions x 4 LUNs, half multipath', build: scale, profile: 'lean' },
];
