/**
 * Building blocks shared by the planners: empty plans, refusals every plan gets, and the step
 * sequences kubelet's teardown is made of (docs/kubelet-iscsi.md#detachdisk), written once and reused by delete-device,
 * flush, logout and cleanup.
 */

import { ifaceDeleteArgv, logoutArgv, nodeDeleteArgv } from '../iscsiadm/argv.js';
import type { KubeletVolume, MultipathMap, ScsiDevice, Session, Snapshot } from '../model.js';
import { fingerprintText } from '../text/fingerprint.js';
import { podLabel } from '../text/pod-names.js';
import { readOnlyRefusals } from './consent.js';
import { recordKey } from './lookup.js';
import { deviceAttrPath } from './sysfs-writes.js';
import type {
  ActionContext,
  BlastRadius,
  Plan,
  PlanActionId,
  PlanStep,
  Precondition,
  Risk,
} from './types.js';

export const EMPTY_BLAST: BlastRadius = {
  sessions: [],
  devices: [],
  maps: [],
  mounts: [],
  kubeletVolumes: [],
  pods: [],
  nodeRecords: [],
};

/** Timeouts per command class: iscsiadm login can take 2 min with default retries (err-login-closed-port-default-retries). */
export const TIMEOUTS = {
  iscsiadm: 30_000,
  login: 150_000,
  multipath: 30_000,
  blockdev: 30_000,
  umount: 60_000,
};

export function newPlan(action: PlanActionId, title: string, subject: string, ctx: ActionContext): Plan {
  return {
    action,
    title,
    subject,
    steps: [],
    // The one read-only refusal (consent.ts) when writes are off.
    refusals: readOnlyRefusals(ctx.write),
    warnings: [],
    blastRadius: structuredClone(EMPTY_BLAST),
    risk: 'low',
    confirm: 'yn',
    undo: [],
    before: [],
    expect: [],
  };
}

/** Notes that `option` (a boolean CLI option) would change the plan (Plan.changedBy). */
export function changedBy(plan: Plan, option: string): void {
  plan.changedBy ??= [];
  addUnique(plan.changedBy, option);
}

/** Adds without duplicates (keeps order). */
export function addUnique(list: string[], ...items: (string | undefined)[]): void {
  for (const i of items) if (i !== undefined && i !== '' && !list.includes(i)) list.push(i);
}

/** Marks a plan destructive: typed confirmation with the given token. */
export function destructive(plan: Plan, risk: Risk, token: string): void {
  plan.risk = risk;
  plan.confirm = 'typed';
  plan.confirmToken = token;
}

/** Unique step ids within a plan. */
export function addStep(plan: Plan, step: PlanStep): PlanStep {
  let id = step.id;
  let n = 2;
  while (plan.steps.some((s) => s.id === id)) id = `${step.id}#${n++}`;
  const s = { ...step, id };
  plan.steps.push(s);
  return s;
}

const pre = (id: string, text: string, subject: string, value?: string): Precondition =>
  value === undefined ? { id, text, subject } : { id, text, subject, value };

export { pre };

export function deviceName(d: ScsiDevice): string {
  return d.name ?? d.hctl;
}

/** `umount <path>` (kubelet UnmountDevice, docs/kubelet-iscsi.md#call-sequence). */
export function unmountStep(path: string, force: boolean): PlanStep {
  return {
    id: `umount:${path}`,
    why: force
      ? 'unmount the global mount although pod bind mounts remain (forced): pods keep the filesystem busy'
      : 'unmount the global mount before the devices go (as kubelet does)',
    argv: ['umount', path],
    effect: { kind: 'unmount', path },
    timeoutMs: TIMEOUTS.umount,
    preconditions: force
      ? [pre('mounted', `${path} is mounted`, path)]
      : [
          pre('mounted', `${path} is mounted`, path),
          pre('no-pod-mounts', `no pod bind-mounts ${path}`, path),
        ],
    doneIf: [pre('not-mounted', `${path} is not mounted`, path)],
  };
}

/**
 * `multipath -f /dev/dm-N` — kubelet flushes every map over the LUN's paths before deleting the
 * paths (docs/kubelet-iscsi.md#device-deletion); a map still mounted, held or open must never be flushed.
 */
export function flushMapStep(m: MultipathMap): PlanStep {
  return {
    id: `flush:${m.name}`,
    why: `flush multipath map ${m.alias} (${m.name}) before deleting its paths (kubelet's order)`,
    argv: ['multipath', '-f', `/dev/${m.name}`],
    effect: { kind: 'flush-map', map: m.wwid },
    timeoutMs: TIMEOUTS.multipath,
    preconditions: [
      pre('map-is', `map ${m.wwid} is still ${m.name}`, m.wwid, m.name),
      pre('map-unused', `${m.name} is not mounted, held, swap or open`, m.wwid),
    ],
    doneIf: [pre('map-absent', `map ${m.alias} is gone`, m.wwid)],
  };
}

/**
 * Deleting one SCSI device: `blockdev --flushbufs` (kubernetes-csi/csi-lib-iscsi iscsi/iscsi.go RemoveSCSIDevices) then `1` to
 * `device/delete` (docs/kubelet-iscsi.md#device-deletion). Devices without a block node (LUN 0 controllers) have only the delete.
 */
export function deleteDeviceSteps(d: ScsiDevice, pathOfLiveMap = false): PlanStep[] {
  const name = deviceName(d);
  const identity = pre('device-is', `${d.key} is still ${name}`, d.key, name);
  // A failed path of a live map stays held by dm until it is deleted; everything else must be free.
  const unused = pathOfLiveMap
    ? pre('device-unmounted', `${name} is not mounted, swap or open`, d.key)
    : pre('device-unused', `${name} is not mounted, held, swap or open`, d.key);
  const gone = pre('device-absent', `${name} is gone`, d.key);
  const steps: PlanStep[] = [];
  // A path that is not running cannot write anything back (blockdev answers EIO): skip the flush.
  if (d.name && (d.state === undefined || d.state === 'running')) {
    steps.push({
      id: `flushbufs:${d.name}`,
      why: `write back ${d.name}'s buffers before removing it`,
      argv: ['blockdev', '--flushbufs', `/dev/${d.name}`],
      effect: { kind: 'flush-buffers', device: d.key },
      timeoutMs: TIMEOUTS.blockdev,
      preconditions: [identity, unused],
      doneIf: [gone],
    });
  }
  steps.push({
    id: `delete:${name}`,
    why: `remove SCSI device ${name} (${d.hctl}) from the kernel`,
    write: {
      path: deviceAttrPath(d, 'delete'),
      data: '1',
    },
    effect: { kind: 'remove-device', device: d.key, path: deviceAttrPath(d, 'delete') },
    preconditions: [identity, unused],
    doneIf: [gone],
  });
  return steps;
}

/**
 * kubelet detachISCSIDisk for one portal (docs/kubelet-iscsi.md#logout-and-record-delete): `--logout` then `-o delete`, argv in kubelet's
 * order, `-I` only when the iface is known; exits 21 and 2 mean "already done".
 */
export function logoutSteps(
  session: Pick<Session, 'targetIqn' | 'portal' | 'iface' | 'key'>,
  sid?: number,
): PlanStep[] {
  const { targetIqn: iqn, portal, iface } = session;
  const rk = recordKey({ targetIqn: iqn, portal, iface });
  return [
    {
      id: `logout:${portal}`,
      why: `log out of ${iqn} at ${portal}${sid === undefined ? '' : ` (session ${sid})`} through iface ${iface}`,
      argv: logoutArgv(portal, iqn, iface),
      effect: { kind: 'logout', session: session.key },
      okExitCodes: [21, 2],
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [pre('session-not-in-use', `session ${portal} is not in use by pods`, session.key)],
      doneIf: [pre('session-absent', `no session to ${portal}`, session.key)],
      takesEffect: [pre('session-absent', `the session to ${portal} is logged out`, session.key)],
    },
    {
      id: `delete-record:${portal}`,
      why: 'delete the node record so iscsid does not log in again at boot',
      argv: nodeDeleteArgv(portal, iqn, iface),
      effect: { kind: 'record-delete', record: rk },
      okExitCodes: [21, 2],
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [pre('session-absent', `session to ${portal} is gone`, session.key)],
      doneIf: [pre('record-absent', `node record ${rk} is gone`, rk)],
    },
  ];
}

/** `iscsiadm -m iface -I <clone> -o delete` — only for kubelet's `<portal>:<volName>` clones (docs/kubelet-iscsi.md#logout-and-record-delete). */
export function ifaceDeleteStep(iface: string): PlanStep {
  return {
    id: `delete-iface:${iface}`,
    why: `delete the cloned iface ${iface} kubelet created for a custom initiator name`,
    argv: ifaceDeleteArgv(iface),
    effect: { kind: 'iface-delete', iface },
    okExitCodes: [21, 2],
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    doneIf: [pre('iface-absent', `iface ${iface} is gone`, iface)],
  };
}

/** Is this iface one of kubelet's per-volume clones (`<portal>:<volName>`)? */
export function isClonedIface(iface: string): boolean {
  if (iface === 'default' || iface === 'iser') return false;
  return /^(\[[^\]]+\]|[^:\s]+):\d+:.+$/.test(iface);
}

/**
 * Removing a kubelet global dir safely: unlink iscsi.json, then rmdir — never recursive
 * (docs/field-incidents.md#6-orphaned-global-dirs; kubelet itself uses RemoveAll, which is how data got lost when a mount was still there).
 */
export function removeKubeletDirSteps(v: KubeletVolume): PlanStep[] {
  const json = `${v.path}/iscsi.json`;
  const notMounted = pre('not-mounted', `${v.path} is not mounted`, v.path);
  return [
    {
      id: `unlink:${json}`,
      // No verdict word here: the same step serves a volume the table calls orphaned and one in use
      // only through its own global mount (unmounted by an earlier step); the plan's subject says which.
      why: "remove kubelet's iscsi.json from the global dir: while the dir exists kubelet counts the volume and never logs the session out",
      fs: { op: 'unlink', path: json },
      effect: { kind: 'unlink', path: json },
      preconditions: [notMounted, pre('dir-only-metadata', `${v.path} holds only iscsi.json`, v.path)],
      doneIf: [pre('path-absent', `${json} is gone`, json)],
    },
    {
      id: `rmdir:${v.path}`,
      why: 'remove the now empty kubelet global dir (rmdir: fails instead of deleting anything else)',
      fs: { op: 'rmdir', path: v.path },
      effect: { kind: 'rmdir', path: v.path },
      preconditions: [notMounted],
      doneIf: [pre('path-absent', `${v.path} is gone`, v.path)],
    },
  ];
}

/** Fills blast radius and `before` fingerprints from sessions (their devices, maps, volumes, pods). */
export function addSessionsToBlast(plan: Plan, s: Snapshot, sessions: readonly Session[]): void {
  const b = plan.blastRadius;
  for (const x of sessions) {
    addUnique(b.sessions, sessionBlast(x));
    addUnique(plan.before, x.key);
    addUnique(b.kubeletVolumes, ...x.kubeletVolumes);
    addUnique(b.pods, ...x.pods.map((u) => podLabel(s.kubelet.pods, u)));
    for (const d of x.devices) addDeviceToBlast(plan, s, d);
    const rec = s.nodeRecords.find(
      (r) => r.targetIqn === x.targetIqn && r.portal === x.portal && r.iface === x.iface,
    );
    if (rec) addUnique(b.nodeRecords, fingerprintText(recordKey(rec)));
  }
}

export function addDeviceToBlast(plan: Plan, s: Snapshot, d: ScsiDevice): void {
  const b = plan.blastRadius;
  addUnique(b.devices, deviceBlast(d));
  addUnique(plan.before, d.key);
  addUnique(b.mounts, ...d.mountpoints, ...(d.blockBinds ?? []).map((x) => x.path));
  for (const m of s.multipath.filter((m) => d.name && m.slaves.includes(d.name))) {
    addUnique(b.maps, `${m.name} ${m.alias}`);
    addUnique(b.mounts, ...m.mountpoints);
  }
}

/** A plan on one session: its fingerprint, its target's lock and its line in the blast radius. */
export function addSessionSubject(plan: Plan, x: Session): void {
  plan.before.push(x.key);
  plan.lockKeys = [x.targetIqn];
  plan.blastRadius.sessions.push(sessionBlast(x));
}

/** A session in the blast radius: `4 iqn… @ 10.0.0.10:3260 (default)` (the pipe key stays internal). */
function sessionBlast(x: Session): string {
  return `${x.sid} ${fingerprintText(x.key)}`;
}

/** A device in the blast radius: `sdd (iqn… @ 10.0.0.10:3260 (default) LUN 1)`. */
export function deviceBlast(d: ScsiDevice): string {
  return `${deviceName(d)} (${fingerprintText(d.key)})`;
}

/**
 * The refusal every per-session action gets while its session is not logged in; `consequence` says what
 * acting anyway would do, `hint` what to do instead.
 */
export function refuseSessionDown(
  plan: Plan,
  x: Session,
  r: { hint: string; overridable: boolean; consequence?: string },
): void {
  if (x.state === 'LOGGED_IN') return;
  plan.refusals.push({
    id: 'session-down',
    reason: `session ${x.sid} is ${x.state}${r.consequence ? `: ${r.consequence}` : ''}`,
    hint: r.hint,
    overridable: r.overridable,
  });
}

/** Highest of two risks. */
export function maxRisk(a: Risk, b: Risk): Risk {
  const order: Risk[] = ['low', 'medium', 'high'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))]!;
}
