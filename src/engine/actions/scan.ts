/**
 * scan: add one LUN of a session with kubelet's targeted scan — `0 0 <L>` to the session's
 * `/sys/class/scsi_host/host<N>/scan` (PR kubernetes#63176: a whole-bus scan teaches the kernel
 * LUNs it should not know). L is the kernel's number for the target LUN (16684 for LUN 300,
 * src/engine/iscsi/lun.ts), where kubelet writes the target LUN and so misses every LUN ≥ 256.
 */
import { UserError } from '../errors.js';
import { kernelLunOf, parseLun } from '../iscsi/lun.js';
import { lunKey, type Snapshot } from '../model.js';
import { findSession } from './lookup.js';
import { noExtraPositionals } from './one-ref.js';
import { addSessionSubject, addStep, newPlan, pre, refuseSessionDown } from './plan-kit.js';
import { hostScanPath, scanData } from './sysfs-writes.js';
import type { ActionDef } from './types.js';

interface ScanInput {
  sessionKey: string;
  lun: number;
}

/** The first expected LUN of the volume at `path` that a logged-in session lacks. */
function missingLunOf(s: Snapshot, path: string): ScanInput {
  const v = s.expected?.volumes.find((x) => x.path === path || csiStaging(s, x.path) === path);
  for (const l of v?.expectedLuns ?? []) {
    for (const p of l.paths) {
      if (p.sessionState !== 'LOGGED_IN' || p.device !== undefined || p.sid === undefined) continue;
      return { sessionKey: findSession(s, String(p.sid)).key, lun: l.lun };
    }
  }
  throw new UserError(
    v
      ? `every LUN ${v.name} expects is present on its logged-in sessions`
      : `${path} names no LUN the console can scan for`,
    'to add another: iscsi-console scan <sid> <lun>',
  );
}

/** A driver file's staging path (the CSI volume row's key), for a volume selected in the CSI rows. */
function csiStaging(s: Snapshot, filePath: string): string | undefined {
  return s.csi?.driverFiles.find((f) => f.path === filePath)?.stagingPath;
}

export const scanAction: ActionDef<ScanInput> = {
  id: 'scan',
  title: 'Scan one LUN',
  key: 'n',
  scopes: ['session', 'volume'],
  destructive: false,
  summary: 'Add one LUN of a session (targeted `0 0 L` scan, as kubelet does)',
  usage: 'scan <sid> <lun>',
  cliOptions: [],
  examples: ['iscsi-console scan 3 1 --write', 'iscsi-console scan 3 1 --dry-run'],
  inputFromCli(positionals, _o, s) {
    const [sid, lun] = positionals;
    if (sid === undefined || lun === undefined)
      throw new UserError('scan needs <sid> <lun>', 'e.g. iscsi-console scan 3 1');
    noExtraPositionals('scan', positionals, ['<sid>', '<lun>']);
    return { sessionKey: findSession(s, sid).key, lun: parseLun(lun) };
  },
  /**
   * From a volume (its "LUN expected, no device" problem): the LUN its metadata expects on the first
   * logged-in session that lacks it (src/engine/snapshot/expected.ts). From a session: the first LUN
   * a kubelet volume of it expects but the kernel does not have.
   */
  inputFromSelection(sel, s) {
    if (sel.scope === 'volume') return missingLunOf(s, sel.key.replace(/^csi:/, ''));
    const x = findSession(s, sel.key);
    const present = new Set(x.devices.map((d) => d.lun));
    const missing = s.kubelet.volumes
      .filter((v) => v.sessions.includes(x.sid))
      .map((v) => Number(v.lun))
      .find((l) => Number.isInteger(l) && !present.has(l));
    if (missing === undefined) {
      throw new UserError(
        `every LUN kubelet expects on session ${x.sid} is present`,
        `to add another: iscsi-console scan ${x.sid} <lun>`,
      );
    }
    return { sessionKey: x.key, lun: missing };
  },
  plan(input, s: Snapshot, ctx) {
    const x = findSession(s, input.sessionKey);
    const key = lunKey(x.targetIqn, x.portal, x.iface, input.lun);
    const plan = newPlan(
      'scan',
      `Scan LUN ${input.lun}`,
      `session ${x.sid} ${x.targetIqn} @ ${x.portal} LUN ${input.lun}`,
      ctx,
    );
    addSessionSubject(plan, x);
    if (x.hostNumber === undefined) {
      plan.refusals.push({
        id: 'no-host',
        reason: `session ${x.sid} has no SCSI host`,
        hint: 'the session is not logged in',
        overridable: false,
      });
    }
    refuseSessionDown(plan, x, {
      hint: 'a scan on a session that is not logged in finds nothing; wait for iscsid to recover it',
      overridable: false,
    });
    if (x.devices.some((d) => d.key === key))
      plan.warnings.push(`LUN ${input.lun} is already present on session ${x.sid}; the scan is a no-op`);
    const k = kernelLunOf(input.lun);
    addStep(plan, {
      id: 'scan',
      why:
        k === input.lun
          ? `targeted scan of channel 0, target 0, LUN ${input.lun} (as kubelet does)`
          : `targeted scan of channel 0, target 0, kernel LUN ${k} (target LUN ${input.lun} in flat space addressing; kubelet would write ${input.lun} and find nothing)`,
      write: { path: hostScanPath(x.hostNumber), data: scanData(k) },
      effect: { kind: 'scan', path: hostScanPath(x.hostNumber) },
      preconditions: [
        pre('session-is', `${x.key} is still session ${x.sid}`, x.key, String(x.sid)),
        pre('session-logged-in', `session ${x.sid} is logged in`, x.key),
      ],
    });
    addStep(plan, {
      id: 'wait-lun',
      why: 'wait for the kernel to register the LUN',
      wait: { what: `LUN ${input.lun} on session ${x.sid}`, timeoutMs: 10_000 },
      effect: { kind: 'none' },
      preconditions: [],
      doneIf: [pre('device-present', `LUN ${input.lun} is present`, key)],
    });
    plan.expect!.push(pre('device-present', `LUN ${input.lun} is present on session ${x.sid}`, key));
    plan.undo.push(`iscsi-console delete-device ${key}`);
    return plan;
  },
};
