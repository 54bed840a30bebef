/**
 * The LUNs a target offers, for the attach wizard (plan side; apply side: list-luns-apply.ts).
 *
 * SendTargets names targets, never LUNs: only the target's REPORT LUNS answer does, and the kernel
 * sends it when a scan asks for every LUN. So the listing is a temporary login, as an admin would
 * do it by hand (YaST2 iscsi-client and Anaconda log in to show a target's disks):
 * a node record written straight (`-o new`, no discovery: no other target's record appears) with
 * `node.startup=manual` and `node.session.scan=manual` (open-iscsi then does not scan at login,
 * usr/initiator.c session_scan_host is skipped), login, `0 0 -` to the session's SCSI host scan file
 * (linux drivers/scsi/scsi_sysfs.c store_scan → the iSCSI transport's user_scan → scsi_scan_target
 * with a wildcard LUN: REPORT LUNS, then one SCSI device per LUN), read each LUN's type, vendor,
 * model and size from sysfs, then delete those devices, log out and delete the record. The plan
 * undoes itself, so a wizard that is cancelled or goes back has nothing left to undo; a failure
 * rolls back what the listing created (the attach's rollback, attach-cleanup.ts).
 *
 * The temporary session goes out through an iface of its own, cloned from the one the admin chose
 * (kubelet's cloneIface: the same transport, netdev binding and initiator name, or the wizard's
 * custom initiator name) and deleted at the end: the node records kubelet's discovery wrote for the
 * target (every target a portal lists gets one, with iscsid.conf's settings and no CHAP) are never
 * used, changed or deleted by the listing.
 *
 * Nothing of kubelet's is touched: when the node already has a session to the target (on any
 * portal), no second one is made — its paths could join a dm map in use — and the LUNs those
 * sessions have are listed from the snapshot, each with what uses it.
 */

import { UserError } from '../errors.js';
import { ifaceNameProblem, iscsiNameProblem } from '../iscsi/names.js';
import { formatPortal, parseTargetPortal, portalProblem } from '../iscsi/portal.js';
import {
  ifaceDeleteArgv,
  ifaceNewArgv,
  loginArgv,
  logoutArgv,
  nodeArgv,
  nodeDeleteArgv,
  nodeNewArgv,
  nodeUpdateArgv,
} from '../iscsiadm/argv.js';
import type { ScsiDevice, Snapshot } from '../model.js';
import { sessionKey } from '../model.js';
import { fingerprintText } from '../text/fingerprint.js';
import { SESSION_CHAP_KEYS } from './chap-keys.js';
import { chapSteps } from './chap-steps.js';
import { deviceUses, recordKey } from './lookup.js';
import { addStep, addUnique, newPlan, pre, TIMEOUTS } from './plan-kit.js';
import { deviceAttrPath, hostScanPath, scanData } from './sysfs-writes.js';
import type { ActionContext, ListedLun, Plan } from './types.js';

export interface ListLunsInput {
  portal: string;
  iqn: string;
  /** open-iscsi iface the attach will use: the listing's own iface is cloned from it. */
  iface: string;
  /** The attach's custom initiator name, if any (targets with ACLs only answer that name). */
  initiatorName?: string;
  /** Session CHAP for the temporary login (values travel apart, in ApplyOptions.secrets). */
  chapSession: boolean;
  /** CHAP keys with a value (names only). */
  secretKeys: string[];
}

/** What the wizard gets: LUNs read from sessions the node has, or the plan that lists them. */
export type LunListing = { kind: 'known'; luns: ListedLun[]; note: string } | { kind: 'plan'; plan: Plan };

/** The listing's own iface (cloned from the admin's, deleted at the end). */
const LIST_IFACE = 'iscsi-console-luns';

/** How long the scanned disks may take to get their sd nodes (sd probes asynchronously). */
const SETTLE_MS = 15_000;

function problem(what: string, value: string, why: string | undefined): void {
  if (why !== undefined) throw new UserError(`invalid ${what} "${value}": ${why}`);
}

/** The portal as sysfs and the node DB spell it; hostnames are refused (sysfs knows addresses only). */
function checkInput(i: ListLunsInput): string {
  problem('portal', i.portal, portalProblem(i.portal));
  problem('target name', i.iqn, iscsiNameProblem(i.iqn));
  problem('iface name', i.iface, ifaceNameProblem(i.iface));
  if (i.initiatorName !== undefined)
    problem('initiator name', i.initiatorName, iscsiNameProblem(i.initiatorName));
  const p = parseTargetPortal(i.portal)!;
  if (p.family === 'hostname')
    throw new UserError(
      `listing LUNs needs the portal's address, not the hostname ${p.address}`,
      'sysfs and the node DB know sessions by address',
    );
  return formatPortal(p.address, p.port);
}

/**
 * What on the node uses LUN `lun` of `iqn` already (a session's device and its use, a kubelet dir);
 * `except` is the listing's own temporary session.
 */
export function lunUse(s: Snapshot, iqn: string, lun: number, except?: string): string | undefined {
  const uses: string[] = [];
  for (const x of s.sessions.filter((x) => x.targetIqn === iqn && x.key !== except)) {
    const d = x.devices.find((d) => d.lun === lun);
    if (!d) continue;
    const what = deviceUses(s, d, { withMapMounts: true }).map((u) => u.what);
    uses.push(`session ${x.sid} ${d.name ?? d.hctl}${what.length > 0 ? ` (${what.join(', ')})` : ''}`);
  }
  const dirs = s.kubelet.volumes.filter((v) => v.iqn === iqn && v.lun === String(lun));
  for (const v of dirs) if (!uses.some((u) => u.includes(v.path))) uses.push(`kubelet dir ${v.path}`);
  return uses.length > 0 ? uses.join('; ') : undefined;
}

/** A SCSI device as a listed LUN. */
export function listedLun(d: ScsiDevice, inUse?: string): ListedLun {
  return {
    lun: d.lun,
    ...(d.type !== undefined ? { type: d.type } : {}),
    ...(d.vendor !== undefined ? { vendor: d.vendor } : {}),
    ...(d.model !== undefined ? { model: d.model } : {}),
    ...(d.rev !== undefined ? { rev: d.rev } : {}),
    ...(d.sizeBytes !== undefined ? { sizeBytes: d.sizeBytes } : {}),
    ...(d.wwid !== undefined ? { wwid: d.wwid } : {}),
    ...(inUse !== undefined ? { inUse } : {}),
    ...(d.fs?.type !== undefined ? { fsType: d.fs.type } : {}),
  };
}

/** The LUNs the node's sessions to `iqn` have (each in use by its session), one per LUN number. */
function knownLuns(s: Snapshot, iqn: string): ListedLun[] {
  const byLun = new Map<number, ListedLun>();
  for (const x of s.sessions.filter((x) => x.targetIqn === iqn))
    for (const d of x.devices) if (!byLun.has(d.lun)) byLun.set(d.lun, listedLun(d, lunUse(s, iqn, d.lun)));
  return [...byLun.values()].sort((a, b) => a.lun - b.lun);
}

/** The listing for the wizard: from the node's own sessions when it has any to the target, else a plan. */
export function lunListing(i: ListLunsInput, s: Snapshot, ctx: ActionContext): LunListing {
  const portal = checkInput(i);
  const sessions = s.sessions.filter((x) => x.targetIqn === i.iqn);
  if (sessions.length > 0) {
    return {
      kind: 'known',
      luns: knownLuns(s, i.iqn),
      note: `the node is logged in to this target already (session ${sessions.map((x) => `${x.sid} @ ${x.portal}`).join(', ')}): these are the LUNs its sessions have scanned; no second session is made and no session is scanned or logged out`,
    };
  }
  return { kind: 'plan', plan: planListLuns({ ...i, portal }, s, ctx) };
}

/** The temporary login that lists the target's LUNs and undoes itself. */
export function planListLuns(i: ListLunsInput, s: Snapshot, ctx: ActionContext): Plan {
  const portal = checkInput(i);
  const { iqn } = i;
  const iface = LIST_IFACE;
  const plan = newPlan('list-luns', 'List LUNs', `${iqn} @ ${portal} (iface ${i.iface})`, ctx);
  plan.lockKeys = [iqn];
  planListingIface(plan, i, iface);
  const key = sessionKey(iqn, portal, iface);
  const rec = recordKey({ targetIqn: iqn, portal, iface });
  const existed = planListingRecord(plan, i, s, { portal, iface, key, rec });
  planListingSession(plan, { iqn, portal, iface, key });
  planListingCleanup(plan, { iqn, portal, iface, rec, existed });
  return plan;
}

/** The listing's own iface, cloned from the one the admin chose (deleted at the end). */
function planListingIface(plan: Plan, i: ListLunsInput, iface: string): void {
  addStep(plan, {
    id: 'clone-iface',
    why: `an iface of the listing's own, cloned from ${i.iface}${i.initiatorName ? ` with initiator name ${i.initiatorName}` : ''} (then one "-o update -n <key> -v <value>" per set key of ${i.iface}): the node records the node has for this target are not used or changed; deleted at the end`,
    argv: ifaceNewArgv(iface),
    effect: { kind: 'iface-new', iface },
    okExitCodes: [15],
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    dynamic: {
      kind: 'iface-clone',
      from: i.iface,
      to: iface,
      ...(i.initiatorName ? { initiatorName: i.initiatorName } : {}),
    },
  });
}

interface ListingIds {
  iqn: string;
  portal: string;
  iface: string;
  /** The temporary session's key. */
  key: string;
  /** Its node record's key. */
  rec: string;
}

/**
 * The node record the login uses: an existing one as it is (kept), else one written for this
 * target only (no discovery), never started at boot, scanning nothing by itself, with session CHAP.
 * Returns whether it existed.
 */
function planListingRecord(
  plan: Plan,
  i: ListLunsInput,
  s: Snapshot,
  { portal, iface, key, rec }: Omit<ListingIds, 'iqn'>,
): boolean {
  const { iqn } = i;
  const existed = s.nodeRecords.some((r) => recordKey(r) === rec);
  if (s.sessions.some((x) => x.targetIqn === iqn)) {
    plan.refusals.push({
      id: 'session-exists',
      reason: `the node has a session to ${iqn} already: its LUNs are listed from it, no temporary login`,
      overridable: false,
    });
  }
  addUnique(plan.blastRadius.sessions, `${fingerprintText(key)} (temporary: logged out at the end)`);
  if (existed) {
    plan.warnings.push(
      `node record ${iqn} @ ${portal} (${iface}) exists: the login uses it as it is (its own startup, scan and CHAP settings) and it is kept afterwards`,
    );
  } else {
    addUnique(plan.blastRadius.nodeRecords, `${fingerprintText(rec)} (created, deleted at the end)`);
    addStep(plan, {
      id: 'node-new',
      why: 'write this one node record (no discovery, so no other target gets a record)',
      argv: nodeNewArgv(portal, iqn, iface),
      effect: { kind: 'record-new', record: rec },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [pre('record-absent', `no node record ${rec}`, rec)],
    });
    addStep(plan, {
      id: 'startup-manual',
      why: 'node.startup=manual: the record never logs in at boot, even if the listing is cut short',
      argv: nodeUpdateArgv(portal, iqn, iface, 'node.startup', 'manual'),
      effect: { kind: 'record-update', record: rec },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
    });
    addStep(plan, {
      id: 'scan-manual',
      why: 'node.session.scan=manual: the login adds no SCSI device by itself',
      argv: nodeUpdateArgv(portal, iqn, iface, 'node.session.scan', 'manual'),
      effect: { kind: 'record-update', record: rec },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
    });
    if (i.chapSession) {
      const target = { scope: 'node' as const, iqn, portal, iface };
      for (const { group: _one, ...st } of chapSteps(
        nodeArgv(portal, iqn, iface),
        SESSION_CHAP_KEYS,
        i.secretKeys,
        portal,
        target,
      ))
        addStep(plan, st);
    }
  }
  if (existed && i.chapSession)
    plan.warnings.push('session CHAP from the wizard is not written into the existing record');
  return existed;
}

/** Log in, scan every LUN, read them, remove the scanned devices, log out. */
function planListingSession(plan: Plan, ids: Omit<ListingIds, 'rec'>): void {
  const { iqn, portal, iface, key } = ids;
  addStep(plan, {
    id: 'login',
    why: `temporary login to ${iqn} at ${portal}`,
    argv: loginArgv(portal, iqn, iface),
    effect: { kind: 'login', session: key },
    timeoutMs: TIMEOUTS.login,
    preconditions: [pre('session-absent', `no session ${key}`, key)],
  });
  sessionWrite(plan, ids, 'scan-target', {
    why: 'ask the target for every LUN: "0 0 -" makes the kernel send REPORT LUNS and add one SCSI device per LUN, on this session only',
    write: { path: hostScanPath(undefined), data: scanData('-') },
    effects: ['scan'],
  });
  addStep(plan, {
    id: 'read-luns',
    why: "read each LUN's type, vendor, model, revision and size from sysfs (waits for the disks' sd nodes)",
    wait: { what: 'the scanned LUNs', timeoutMs: SETTLE_MS },
    preconditions: [],
    dynamic: { kind: 'read-luns', iqn, portal, iface, timeoutMs: SETTLE_MS },
    effect: { kind: 'none' },
  });
  // Each scanned device is checked by the guard (in use? a path of a map?) right before its delete.
  sessionWrite(plan, ids, 'remove-scanned', {
    why: 'delete the SCSI devices the scan added (nothing uses them: they are seconds old and this session is not in kubelet)',
    write: { path: deviceAttrPath({ hctl: '<H:0:0:L>' }, 'delete'), data: '1' },
    effects: ['remove-device'],
  });
  addStep(plan, {
    id: 'logout',
    why: 'log the temporary session out',
    argv: logoutArgv(portal, iqn, iface),
    effect: { kind: 'logout', session: key },
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [pre('session-present', `session ${key}`, key)],
  });
  plan.expect!.push(pre('session-absent', `no session ${key}`, key));
}

/**
 * A sysfs write on the temporary session whose objects are found at apply time (list-luns-apply.ts
 * resolves the step's dynamic kind, which is its id, to the session's SCSI host or scanned devices).
 */
function sessionWrite(
  plan: Plan,
  { iqn, portal, iface, key }: Omit<ListingIds, 'rec'>,
  id: 'scan-target' | 'remove-scanned',
  step: { why: string; write: { path: string; data: string }; effects: ('scan' | 'remove-device')[] },
): void {
  addStep(plan, {
    id,
    why: step.why,
    write: step.write,
    preconditions: [pre('session-present', `session ${key}`, key)],
    dynamic: { kind: id, iqn, portal, iface },
    effect: { kind: 'at-apply', effects: step.effects },
  });
}

/** Delete what the listing created; on failure or when stopped, roll back all of it. */
function planListingCleanup(
  plan: Plan,
  { iqn, portal, iface, rec, existed }: Omit<ListingIds, 'key'> & { existed: boolean },
): void {
  if (!existed) {
    addStep(plan, {
      id: 'node-delete',
      why: 'delete the node record the listing wrote',
      argv: nodeDeleteArgv(portal, iqn, iface),
      effect: { kind: 'record-delete', record: rec },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
    });
    plan.expect!.push(pre('record-absent', `no node record ${rec}`, rec));
  }
  addStep(plan, {
    id: 'iface-delete',
    why: "delete the listing's iface",
    argv: ifaceDeleteArgv(iface),
    effect: { kind: 'iface-delete', iface },
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
  });
  plan.expect!.push(pre('iface-absent', `no iface ${iface}`, iface));
  plan.rollback = {
    iqn,
    iface,
    loginPortals: [portal],
    discoveryPortals: [],
    clone: iface,
    globalPath: '',
    keep: false,
    // Stopped between steps (the wizard quit, SIGTERM, SIGHUP), the listing still undoes itself.
    undoOnInterrupt: true,
  };
  plan.warnings.push(
    'on failure or when stopped: the temporary session, the node record and the iface the listing created are removed again',
  );
}
