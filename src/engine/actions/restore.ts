/**
 * restore: put back the paths a volume's own metadata expects (src/engine/snapshot/expected.ts).
 * kubelet's AttachDisk logs in to every portal it can and carries on with the rest; it never
 * retries a portal that failed (pkg/volume/iscsi/iscsi_util.go; kubernetes#74305, trident#909). For
 * each expected portal with no session this runs kubelet's own login sequence for that portal (the
 * iface the volume uses; discovery only when the node record is missing; node.session.scan and
 * node.startup manual; login) and the targeted `0 0 L` scan of each expected LUN on the new
 * session's host (attach-portal.ts, the attach planner's very steps), waits for the by-path link and
 * for the device to join the volume's multipath map, and verifies the map's path count.
 *
 * Refused, before anything changes, when a portal does not answer the reachability probe (the
 * plan's first step; nothing half-done), when the volume has no path at all (kubelet attaches it
 * when a pod needs it), when its device is used directly without a map (multipathd cannot put a map
 * over a device in use, so the new path would stay unused), or when CHAP would have to be copied.
 */

import { UserError } from '../errors.js';
import type { ExpectedVolume, Snapshot } from '../model.js';
import { sessionKey } from '../model.js';
import { probeLine } from '../probe/probe-line.js';
import { volumeHasSession } from '../snapshot/expected.js';
import { fingerprintText } from '../text/fingerprint.js';
import { planLunScan, planPortalLogin } from './attach-portal.js';
import { deviceByKey, deviceUse, recordKey } from './lookup.js';
import { noExtraPositionals } from './one-ref.js';
import { addStep, addUnique, newPlan, pre } from './plan-kit.js';
import type { ActionContext, ActionDef, Plan, Scope } from './types.js';

interface RestoreInput {
  /** A target (every volume that expects it) or one volume (its global dir or driver file). */
  kind: 'target' | 'volume';
  /** The IQN, or the volume's path. */
  ref: string;
}

/** How long the new path may take to join the volume's map (multipathd reacts to udev's event). */
const MAP_WAIT_MS = 30_000;

function expectedVolumes(s: Snapshot): ExpectedVolume[] {
  return s.expected?.volumes ?? [];
}

/** The volumes a restore input names. */
function volumesOf(s: Snapshot, input: RestoreInput): ExpectedVolume[] {
  const all = expectedVolumes(s);
  return input.kind === 'target'
    ? all.filter((v) => v.iqn === input.ref)
    : all.filter((v) => v.path === input.ref);
}

/** A CLI argument: a target IQN, a volume's path, or its PV name. */
function resolveRef(s: Snapshot, ref: string): RestoreInput {
  const all = expectedVolumes(s);
  if (all.some((v) => v.iqn === ref)) return { kind: 'target', ref };
  const byPath = all.find((v) => v.path === ref.replace(/\/+$/, ''));
  if (byPath) return { kind: 'volume', ref: byPath.path };
  const byName = all.filter((v) => v.name === ref);
  if (byName.length === 1) return { kind: 'volume', ref: byName[0]!.path };
  if (byName.length > 1)
    throw new UserError(
      `${byName.length} volumes are named ${ref}`,
      `name one by its path: ${byName.map((v) => v.path).join(', ')}`,
    );
  const short = all.filter((v) => v.missingPortals.length > 0);
  throw new UserError(
    `no volume or target named ${ref} has expected paths`,
    short.length > 0
      ? `volumes with a portal not logged in: ${short.map((v) => `${v.name} (${v.iqn})`).join(', ')}`
      : 'no volume on this node lacks a portal (status --json: .expected)',
  );
}

/** One login to plan: a missing portal of a target, with the iface and LUNs of the volumes that expect it. */
interface PortalLogin {
  portal: string;
  iface: string;
  luns: number[];
  volumes: ExpectedVolume[];
}

function missingLogins(plan: Plan, volumes: readonly ExpectedVolume[]): PortalLogin[] {
  const byPortal = new Map<string, PortalLogin>();
  for (const v of volumes) {
    for (const portal of v.missingPortals) {
      let l = byPortal.get(portal);
      if (!l) {
        l = { portal, iface: v.iface, luns: [], volumes: [] };
        byPortal.set(portal, l);
      } else if (l.iface !== v.iface) {
        // kubelet's portal→host map ignores the iface: one session per portal serves every volume.
        plan.warnings.push(
          `${v.name} uses iface ${v.iface}, ${l.volumes[0]!.name} uses ${l.iface}: ${portal} is logged in once, through ${l.iface}`,
        );
      }
      l.volumes.push(v);
      for (const x of v.expectedLuns) if (!l.luns.includes(x.lun)) l.luns.push(x.lun);
    }
  }
  return [...byPortal.values()];
}

/** Refusals that depend on a volume: no path at all, or its device used directly without a map. */
function refuseVolume(plan: Plan, s: Snapshot, v: ExpectedVolume): void {
  if (!volumeHasSession(v)) {
    plan.refusals.push({
      id: 'no-path',
      reason: `${v.name} has no session to any expected portal`,
      hint: 'kubelet attaches the volume when a pod needs it; restore adds paths to a volume in service',
      overridable: false,
    });
    return;
  }
  if (v.missingPortals.length === 0) return;
  for (const l of v.expectedLuns) {
    if (l.map || l.device === null) continue;
    const p = l.paths.find((x) => x.device === l.device);
    const d = p?.sid !== undefined ? deviceByKey(s, keyOf(s, p.sid, l.lun)) : undefined;
    const use = d ? deviceUse(s, d.device) : [];
    if (use.length > 0) {
      plan.refusals.push({
        id: 'in-use-without-map',
        reason: `${v.name}'s LUN ${l.lun} runs on ${l.device} directly, with no multipath map, and ${l.device} is in use (${use.join('; ')}): multipathd cannot put a map over a device in use, so a new path would stay unused`,
        hint: 'stop the pods using it (kubelet then attaches it again on every portal), or make multipathd claim it before the volume is used',
        overridable: false,
      });
    }
  }
}

function keyOf(s: Snapshot, sid: number, lun: number): string {
  const x = s.sessions.find((z) => z.sid === sid);
  return x?.devices.find((d) => d.lun === lun)?.key ?? '';
}

/**
 * CHAP: a portal whose node record is missing gets a new one from discovery, without CHAP; when
 * the records of the volume's other portals use CHAP, the login would fail. The console never copies
 * secrets between records: refused with the command that supplies them.
 */
function refuseChap(plan: Plan, s: Snapshot, iqn: string, l: PortalLogin, recordMissing: boolean): void {
  if (!recordMissing) return;
  const chap = s.nodeRecords.some((r) => r.targetIqn === iqn && r.chap);
  if (!chap) return;
  plan.refusals.push({
    id: 'chap',
    reason: `${iqn}'s other node records use CHAP and ${l.portal} has no record: a discovered record has no CHAP values, and the console never copies secrets between records`,
    hint: `attach the volume with its Secret: iscsi-console attach --manifest <pv.yaml> --secret <secret.yaml> --write (an existing session is kept, as kubelet does)`,
    overridable: false,
  });
}

/**
 * A portal the probe last found silent is refused before consent (the probe step would refuse it
 * anyway, after consent); the step probes again at apply time, so a portal back since then passes.
 */
function refuseSilentPortals(plan: Plan, ctx: ActionContext, logins: readonly PortalLogin[]): void {
  for (const l of logins) {
    const last = ctx.prober?.last(l.portal);
    if (last?.answers !== false) continue;
    plan.refusals.push({
      id: 'portal-silent',
      reason: `portal ${l.portal} does not answer: ${probeLine(last)}`,
      hint: 'wait for the array, then run restore again (it probes again first)',
      overridable: false,
    });
  }
}

function planRestore(input: RestoreInput, s: Snapshot, ctx: ActionContext): Plan {
  const volumes = volumesOf(s, input);
  const iqn = input.kind === 'target' ? input.ref : (volumes[0]?.iqn ?? '');
  const what = input.kind === 'target' ? `target ${iqn}` : `volume ${volumes[0]?.name ?? input.ref}`;
  const plan = newPlan('restore', 'Restore expected paths', what, ctx);
  plan.risk = 'low';
  plan.lockKeys = [iqn];
  if (volumes.length === 0) {
    plan.refusals.push({
      id: 'not-expected',
      reason: `no volume expects ${input.ref} any more`,
      hint: 'the node changed since the selection: re-read it',
      overridable: false,
    });
    return plan;
  }
  for (const v of volumes) refuseVolume(plan, s, v);
  const logins = missingLogins(plan, volumes.filter(volumeHasSession));
  if (logins.length === 0 && !plan.refusals.some((r) => r.id === 'no-path')) {
    plan.refusals.push({ id: 'nothing-missing', ...nothingMissing(volumes), overridable: false });
    return plan;
  }
  for (const v of volumes) addUnique(plan.blastRadius.kubeletVolumes, v.path);
  addStep(plan, {
    id: 'probe-portals',
    why: `reachability probe of ${logins.map((l) => l.portal).join(', ')}: a portal that does not answer refuses the plan before anything changes`,
    wait: {
      what: `${logins.map((l) => l.portal).join(', ')} to answer the reachability probe`,
      timeoutMs: 5_000,
    },
    preconditions: volumes.map((v) =>
      pre(
        'volume-expects',
        `${v.name} still expects ${v.expectedPortals.join(', ')}`,
        v.path,
        v.expectedPortals.join(','),
      ),
    ),
    dynamic: { kind: 'probe-portals', portals: logins.map((l) => l.portal) },
    effect: { kind: 'none' },
  });
  refuseSilentPortals(plan, ctx, logins);
  for (const l of logins) {
    const record = recordKey({ targetIqn: iqn, portal: l.portal, iface: l.iface });
    const recordMissing = !s.nodeRecords.some((r) => recordKey(r) === record);
    refuseChap(plan, s, iqn, l, recordMissing);
    const first = plan.steps.length;
    planPortalLogin(plan, {
      iqn,
      portal: l.portal,
      iface: l.iface,
      discover: recordMissing,
      chapDiscovery: false,
      chapSession: false,
      secretKeys: [],
    });
    // Nothing logged in to the portal since planning (by any iface: kubelet's portal→host map ignores it).
    plan.steps[first]!.preconditions.push(
      pre('target-portal-absent', `no session to ${iqn} at ${l.portal}`, `${iqn}|${l.portal}`),
    );
    addUnique(plan.blastRadius.sessions, fingerprintText(sessionKey(iqn, l.portal, l.iface)));
    addUnique(plan.blastRadius.nodeRecords, ...(recordMissing ? [fingerprintText(record)] : []));
    for (const lun of l.luns)
      planLunScan(plan, {
        iqn,
        portal: l.portal,
        iface: l.iface,
        lun,
        host: undefined,
        ...(l.luns.length > 1 ? { idSuffix: `:lun${lun}` } : {}),
      });
  }
  for (const v of volumes.filter((x) => x.missingPortals.length > 0 && volumeHasSession(x))) {
    const want = pre(
      'volume-paths',
      `${v.name} has ${v.expectedPaths} paths${v.expectedPaths > 1 ? ' in one multipath map' : ''}`,
      v.path,
      String(v.expectedPaths),
    );
    addStep(plan, {
      id: `wait-map:${v.name}`,
      why: `wait for the new path${v.missingPortals.length > 1 ? 's' : ''} to join ${v.name}'s multipath map (multipathd adds a path udev announces)`,
      wait: { what: `${v.name}'s map with ${v.expectedPaths} paths`, timeoutMs: MAP_WAIT_MS },
      effect: { kind: 'none' },
      preconditions: [],
      doneIf: [want],
    });
    plan.expect!.push(want);
  }
  plan.warnings.push(
    'a portal whose login fails is left as it was (its new node record deleted again, as kubelet does); the others are still restored',
  );
  return plan;
}

function nothingMissing(volumes: readonly ExpectedVolume[]): { reason: string; hint?: string } {
  for (const v of volumes)
    for (const l of v.expectedLuns)
      for (const p of l.paths)
        if (p.sessionState === 'LOGGED_IN' && p.device === undefined)
          return {
            reason: `every portal ${v.name} expects has a session, but session ${p.sid} lacks LUN ${l.lun}`,
            hint: `iscsi-console scan ${p.sid} ${l.lun} --write`,
          };
  return {
    reason: `every portal ${volumes.map((v) => v.name).join(', ')} expects${volumes.length > 1 ? '' : 's'} has a session`,
  };
}

/** The input for a console selection: a volume row, or a session row (its target). */
function fromSelection(sel: { scope: Scope; key: string }, s: Snapshot): RestoreInput {
  if (sel.scope === 'volume') {
    const path = sel.key.replace(/^csi:/, '');
    const v = expectedVolumes(s).find((x) => x.path === path);
    if (v) return { kind: 'volume', ref: v.path };
    throw new UserError(`${path} names no portals and LUN the console can restore`);
  }
  const x = s.sessions.find((z) => z.key === sel.key);
  if (x && expectedVolumes(s).some((v) => v.iqn === x.targetIqn)) return { kind: 'target', ref: x.targetIqn };
  throw new UserError(
    "no volume expects this session's target",
    'restore works on a volume or a target kubelet or a driver names',
  );
}

export const restoreAction: ActionDef<RestoreInput> = {
  id: 'restore',
  title: 'Restore expected paths',
  key: 'e',
  scopes: ['volume', 'session'],
  destructive: false,
  summary:
    "Log in to the portals a volume's metadata expects but has no session to (kubelet's own login and LUN scan), and verify the map's paths",
  usage: 'restore <target-iqn | volume-path | pv-name>',
  cliOptions: [],
  examples: [
    'iscsi-console restore pv-x --dry-run',
    'iscsi-console restore iqn.2024-01.lab.example:t1 --write',
  ],
  inputFromCli(positionals, _o, s) {
    const [ref] = positionals;
    if (ref === undefined)
      throw new UserError(
        'restore needs a target IQN, a volume path or a PV name',
        'e.g. iscsi-console restore pv-x --dry-run',
      );
    noExtraPositionals('restore', positionals, ['<target|volume>']);
    return resolveRef(s, ref);
  },
  inputFromSelection: fromSelection,
  plan: planRestore,
};
