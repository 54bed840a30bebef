import type { DoctorCheckFn } from '../types.js';
import { csiDrivers } from './csi-drivers.js';
import { iscsidRunning, multipathdRunning, udevdRunning } from './daemons.js';
import { expectedPaths } from './expected-paths.js';
import { initiatorName } from './initiator.js';
import { kubeletOwnsVolumes, kubeletRoot, kubeletRunning } from './kubelet.js';
import { dmMultipathModule, iscsiTcpModule, scsiTransportIscsiModule } from './modules.js';
import { networkNamespace } from './netns.js';
import { automaticStartup, emptyRecords } from './node-records.js';
import { portalsUp } from './portals.js';
import { rootOnIscsi } from './root-on-iscsi.js';
import { replacementTimeouts } from './timeouts.js';
import { versionsMatch } from './versions.js';

/** Every doctor check, in the order shown: daemons and tools first, then configuration, then kubelet. */
export const DOCTOR_CHECKS: readonly DoctorCheckFn[] = [
  iscsidRunning,
  versionsMatch,
  iscsiTcpModule,
  scsiTransportIscsiModule,
  dmMultipathModule,
  initiatorName,
  multipathdRunning,
  udevdRunning,
  networkNamespace,
  kubeletRoot,
  kubeletRunning,
  automaticStartup,
  emptyRecords,
  replacementTimeouts,
  portalsUp,
  expectedPaths,
  rootOnIscsi,
  kubeletOwnsVolumes,
  csiDrivers,
];
