/**
 * kubelet's AttachDisk for one portal (docs/kubelet-iscsi.md#attachdisk) as plan steps: the iface it
 * logs in through, the login sequence (discovery, node.session.scan and node.startup manual, CHAP,
 * login) and the targeted scan of the one LUN with the wait for its by-path link. The attach planner
 * runs them per portal; any planner that logs in to a portal the way kubelet does uses them too.
 */

import { UserError } from '../errors.js';
import { kernelLunOf, kubeletLunProblem } from '../iscsi/lun.js';
import { parseTargetPortal } from '../iscsi/portal.js';
import {
  discoverNewArgv,
  discoverydbArgv,
  ifaceDeleteArgv,
  ifaceNewArgv,
  ifaceShowArgv,
  loginArgv,
  logoutArgv,
  nodeArgv,
  nodeDeleteArgv,
  nodeStartupAllIfacesArgv,
  nodeUpdateArgv,
  recordOpArgv,
} from '../iscsiadm/argv.js';
import { lunKey, sessionKey } from '../model.js';
import { DISCOVERY_CHAP_KEYS, SESSION_CHAP_KEYS } from './chap-keys.js';
import { chapSteps } from './chap-steps.js';
import { byPathName } from './deps.js';
import { discoveryRecordKey } from './effects.js';
import { shellLine } from './format.js';
import { addStep, TIMEOUTS } from './plan-kit.js';
import { hostScanPath, scanData } from './sysfs-writes.js';
import type { Plan } from './types.js';

/** The iface an attach logs in through: `initIface` itself, or its clone with another initiator name. */
interface IfaceSpec {
  /** spec.iscsiInterface (`default` unless set). */
  initIface: string;
  /** The iface the sessions use: `initIface`, or the clone's name (`<portal>:<volName>`, kubelet's). */
  iface: string;
  /** Set: `iface` is a clone of `initIface` with this initiator name. */
  initiatorName?: string;
}

/**
 * The iface steps, before any portal's: read `initIface`'s transport (kubelet's first step) and,
 * with an initiator name, clone it (deleted again on failure; the plan's undo names the delete).
 */
export function planIface(plan: Plan, spec: IfaceSpec): void {
  addStep(plan, {
    id: 'probe-transport',
    // kubelet's AttachDisk step 1 (docs/kubelet-iscsi.md#attachdisk).
    why: `read iface ${spec.initIface}'s transport, as kubelet does first (<empty> means tcp)`,
    argv: ifaceShowArgv(spec.initIface),
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    dynamic: { kind: 'probe-transport', iface: spec.initIface },
    effect: { kind: 'none' },
  });
  if (!spec.initiatorName) return;
  if (spec.initIface === spec.iface)
    throw new UserError('the iface clone would replace the iface it is cloned from');
  addStep(plan, {
    id: 'clone-iface',
    why: `clone iface ${spec.initIface} as ${spec.iface} with initiator name ${spec.initiatorName}: then one "-o update -n <key> -v <value>" per set key of ${spec.initIface} (sorted) and iface.initiatorname; exit 15 (the iface exists) tolerated; deleted again on failure`,
    argv: ifaceNewArgv(spec.iface),
    okExitCodes: [15],
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    dynamic: {
      kind: 'iface-clone',
      from: spec.initIface,
      to: spec.iface,
      initiatorName: spec.initiatorName,
    },
    effect: { kind: 'iface-new', iface: spec.iface },
  });
  plan.undo.push(shellLine(ifaceDeleteArgv(spec.iface)));
}

/** One portal's login, as kubelet's AttachDisk logs in to each portal of a volume. */
interface PortalLoginSpec {
  iqn: string;
  /** The portal, normalised (`ADDR:PORT`, IPv6 as `[ADDR]:PORT`); also the steps' `group`. */
  portal: string;
  iface: string;
  /**
   * SendTargets discovery first (`discoverydb -o new`, its CHAP, `--discover -o new`), as kubelet
   * always does: the node record login uses is created by it. False when that record exists already.
   */
  discover: boolean;
  chapDiscovery: boolean;
  chapSession: boolean;
  /** Names of the CHAP keys that have a value (the values travel apart, in ApplyOptions.secrets). */
  secretKeys: readonly string[];
}

/**
 * The login steps for one portal, each in the portal's group (a failed portal skips the rest of its
 * group, and the next portal is tried): discovery (unless `discover` is false), node.session.scan
 * manual, session CHAP, login (exit 15 is success; a failed login deletes the node record, as
 * kubelet does), node.startup manual. Adds the logout + record delete to the plan's undo.
 */
export function planPortalLogin(plan: Plan, spec: PortalLoginSpec): void {
  const { iqn, portal: tp, iface } = spec;
  const group = tp;
  const rk = sessionKey(iqn, tp, iface);
  const addChap = (scope: 'discovery' | 'node', base: string[], keys: readonly string[]) => {
    const target = { scope, iqn, portal: tp, iface };
    for (const st of chapSteps(base, keys, spec.secretKeys, group, target)) addStep(plan, st);
  };
  // kubelet only logs a warning when these two record updates fail (docs/kubelet-iscsi.md#attachdisk).
  const warnOnlyUpdate = (id: string, why: string, argv: string[]) =>
    addStep(plan, {
      id: `${id}:${tp}`,
      why: `${why}; failure only warned`,
      argv,
      effect: { kind: 'record-update', record: rk },
      warnOnly: true,
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
      group,
    });
  if (spec.discover) planDiscovery(plan, spec, spec.chapDiscovery ? addChap : undefined);
  warnOnlyUpdate(
    'scan-manual',
    'node.session.scan=manual so login does not scan every LUN of the target',
    nodeUpdateArgv(tp, iqn, iface, 'node.session.scan', 'manual'),
  );
  if (spec.chapSession) addChap('node', nodeArgv(tp, iqn, iface), SESSION_CHAP_KEYS);
  addStep(plan, {
    id: `login:${tp}`,
    why: `log in to ${iqn} at ${tp}; exit 15 (session exists) is success; on failure the node record is deleted`,
    argv: loginArgv(tp, iqn, iface),
    effect: { kind: 'login', session: rk },
    okExitCodes: [15],
    timeoutMs: TIMEOUTS.login,
    preconditions: [],
    group,
    onFailure: [
      {
        why: 'kubelet deletes the node record after a failed login',
        argv: nodeDeleteArgv(tp, iqn, iface),
        effect: { kind: 'record-delete', record: rk },
      },
    ],
  });
  warnOnlyUpdate(
    'startup-manual',
    'node.startup=manual on every iface record of this portal and target (no -I), so iscsid does not log in again at boot',
    nodeStartupAllIfacesArgv(tp, iqn, 'manual'),
  );
  plan.undo.push(`${shellLine(logoutArgv(tp, iqn, iface))}; ${shellLine(nodeDeleteArgv(tp, iqn, iface))}`);
}

/** The discovery record (result ignored, like kubelet), its CHAP, and SendTargets discovery. */
function planDiscovery(
  plan: Plan,
  spec: PortalLoginSpec,
  addChap: ((scope: 'discovery', base: string[], keys: readonly string[]) => void) | undefined,
): void {
  const { portal: tp, iface } = spec;
  const disc = discoverydbArgv(tp, iface);
  addStep(plan, {
    id: `discoverydb-new:${tp}`,
    why: 'create the discovery record (result ignored, like kubelet)',
    argv: recordOpArgv(disc, 'new'),
    effect: { kind: 'record-new', record: discoveryRecordKey(tp, iface) },
    ignoreFailure: true,
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    group: tp,
  });
  addChap?.('discovery', disc, DISCOVERY_CHAP_KEYS);
  addStep(plan, {
    id: `discover:${tp}`,
    why: `SendTargets discovery at ${tp}: it writes a node record for EVERY target the portal lists (new records only: "-o new" leaves existing ones as they are); on failure the discovery record is deleted and the next portal tried`,
    argv: discoverNewArgv(tp, iface),
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    group: tp,
    dynamic: { kind: 'discover', portal: tp, iface },
    effect: { kind: 'discover', portal: tp, iface },
    onFailure: [
      {
        why: 'kubelet deletes the discovery record after a failed discovery',
        argv: recordOpArgv(disc, 'delete'),
        effect: { kind: 'record-delete', record: discoveryRecordKey(tp, iface) },
      },
    ],
  });
}

/** One LUN on one portal's session. */
interface LunScanSpec {
  iqn: string;
  /** The portal, normalised; also the steps' `group`. */
  portal: string;
  iface: string;
  /** The target's LUN number (as the PV names it). */
  lun: number;
  /** The SCSI host number of a session already logged in (portalHostMap), else resolved after the login. */
  host: number | undefined;
  /** Appended to the step ids, for a plan that scans several LUNs on one portal (`:lun3`). */
  idSuffix?: string;
}

/**
 * The targeted scan of one LUN on the portal's SCSI host (kubelet scanOneLun, with the kernel's
 * number for LUN ≥ 256) and the wait for udev's by-path link; the LUN joins the plan's `before`.
 */
export function planLunScan(plan: Plan, spec: LunScanSpec): void {
  const { iqn, portal: tp, lun } = spec;
  const kLun = kernelLunOf(lun);
  const suffix = spec.idSuffix ?? '';
  addStep(plan, {
    id: `scan-lun:${tp}${suffix}`,
    why:
      kLun === lun
        ? `targeted scan "0 0 ${lun}" on the session's SCSI host (this LUN only: a whole-bus scan would add LUNs no volume asked for)`
        : `targeted scan "0 0 ${kLun}" on the session's SCSI host: the kernel's number for target LUN ${lun} (kubelet writes ${lun}, which asks the target for another LUN)`,
    write: { path: hostScanPath(spec.host), data: scanData(kLun) },
    preconditions: [],
    group: tp,
    dynamic: { kind: 'scan-lun', iqn, portal: tp, lun },
    // The SCSI host (so the scan attribute's path) is the one the login made.
    effect: { kind: 'at-apply', effects: ['scan'] },
  });
  const byPath = `/dev/disk/by-path/${byPathName(parseTargetPortal(tp)!, iqn, lun)}`;
  const kubeletProblem = kubeletLunProblem(lun);
  if (kubeletProblem) plan.warnings.push(kubeletProblem);
  addStep(plan, {
    id: `wait-device:${tp}${suffix}`,
    why: "wait for udev to create the by-path link (polled every 100 ms, not kubelet's 1 s sleeps)",
    wait: { what: `device for ${tp} LUN ${lun}`, path: byPath, timeoutMs: 30_000 },
    preconditions: [],
    group: tp,
    dynamic: { kind: 'wait-device', byPath, iqn, portal: tp, lun },
    effect: { kind: 'none' },
  });
  plan.before.push(lunKey(iqn, tp, spec.iface, lun));
}
