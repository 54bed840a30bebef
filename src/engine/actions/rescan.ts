/**
 * rescan: `iscsiadm -m session -r <sid> --rescan` — re-reads sizes of existing devices and writes
 * `- - -` to the host's scan file, i.e. it discovers ALL LUNs (docs/iscsiadm.md#discovery-and-mutation-outputs, docs/field-incidents.md#10-foreign-luns-appear-at-login). It does not online
 * offline devices (use `online`).
 */
import { sessionRescanArgv } from '../iscsiadm/argv.js';
import type { Snapshot } from '../model.js';
import { findSession } from './lookup.js';
import { oneRefInput } from './one-ref.js';
import { addSessionSubject, addStep, newPlan, pre, refuseSessionDown, TIMEOUTS } from './plan-kit.js';
import type { ActionDef } from './types.js';

interface RescanInput {
  sessionKey: string;
}

export const rescanAction: ActionDef<RescanInput> = {
  id: 'rescan',
  title: 'Rescan session',
  key: 'r',
  scopes: ['session'],
  destructive: false,
  summary: 'Rescan a session (iscsiadm --rescan: resizes devices, scans ALL LUNs)',
  ...oneRefInput(
    'rescan',
    '<sid>',
    (s, sid) => ({ sessionKey: findSession(s, sid).key }),
    'e.g. iscsi-console rescan 3',
  ),
  cliOptions: [],
  examples: ['iscsi-console rescan 3 --write --yes'],
  plan(input, s: Snapshot, ctx) {
    const x = findSession(s, input.sessionKey);
    const plan = newPlan('rescan', 'Rescan session', `session ${x.sid} ${x.targetIqn} @ ${x.portal}`, ctx);
    plan.risk = 'medium';
    addSessionSubject(plan, x);
    plan.warnings.push(
      'iscsiadm --rescan writes "- - -" (all LUNs): LUNs no volume asked for appear as new devices on this node; prefer `scan <sid> <lun>`',
    );
    refuseSessionDown(plan, x, {
      hint: 'a rescan of a session that is not logged in blocks until the recovery timeout',
      overridable: true,
    });
    addStep(plan, {
      id: 'rescan',
      why: 'rescan the session (sizes of existing LUNs, new LUNs)',
      argv: sessionRescanArgv(x.sid),
      effect: { kind: 'rescan', session: x.key },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [pre('session-is', `${x.key} is still session ${x.sid}`, x.key, String(x.sid))],
    });
    plan.expect!.push(pre('session-present', `session ${x.sid} is still there`, x.key));
    return plan;
  },
};
