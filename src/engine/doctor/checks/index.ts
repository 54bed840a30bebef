import type { DoctorCheckFn } from '../types.js';
import { csiDrivers } from './csi-drivers.js';
import { iscsidRunning, multipathdRunning, udevdRunning } from './daemons.js';
import { expectedPaths } from './expected-paths.js';
import { initiatorName, initiatorUnique } from './initiator.js';
import { iscsidConfStartup, noopOut } from './iscsid-settings.js';
import { kubeletOwnsVolumes, kubeletRoot, kubeletRunning } from './kubelet.js';
import { dmMultipathModule, iscsiTcpModule, scsiTransportIscsiModule } from './modules.js';
import { multipathClaims } from './multipath-claims.js';
import { devLossTmo, noPathRetry, tridentFindMultipaths } from './multipath-config.js';
import { networkNamespace } from './netns.js';
import { automaticStartup, emptyRecords } from './node-records.js';
import { portalsUp } from './portals.js';
import { rootOnIscsi } from './root-on-iscsi.js';
import { replacementTimeoutLayout, replacementTimeouts } from './timeouts.js';
import { versionsMatch } from './versions.js';

/** Every doctor check, in the order shown: daemons and tools first, then configuration (iSCSI, then multipath), then kubelet. */
export const DOCTOR_CHECKS: readonly DoctorCheckFn[] = [
  iscsidRunning,
  versionsMatch,
  iscsiTcpModule,
  scsiTransportIscsiModule,
  dmMultipathModule,
  initiatorName,
  initiatorUnique,
  multipathdRunning,
  udevdRunning,
  networkNamespace,
  kubeletRoot,
  kubeletRunning,
  automaticStartup,
  emptyRecords,
  iscsidConfStartup,
  replacementTimeouts,
  replacementTimeoutLayout,
  noopOut,
  tridentFindMultipaths,
  noPathRetry,
  devLossTmo,
  multipathClaims,
  portalsUp,
  expectedPaths,
  rootOnIscsi,
  kubeletOwnsVolumes,
  csiDrivers,
];
