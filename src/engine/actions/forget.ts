/**
 * forget: node records — delete them, or set `node.startup=manual` so iscsid stops logging them in
 * at boot (kubelet sets manual after every login, PR kubernetes#57475). `--discover` creates records
 * for every target a portal lists (docs/kubelet-iscsi.md#latent-behaviours item 2), so foreign records pile up.
 */

import { UserError } from '../errors.js';
import { discoverArgv, nodeArgv, recordOpArgv, recordUpdateArgv } from '../iscsiadm/argv.js';
import type { NodeRecord, Snapshot } from '../model.js';
import { fingerprintText } from '../text/fingerprint.js';
import { shellLine } from './format.js';
import { onTarget, parseTargetRef, recordByKey, recordKey } from './lookup.js';
import { addStep, addUnique, destructive, newPlan, pre, TIMEOUTS } from './plan-kit.js';
import type { ActionDef } from './types.js';

interface ForgetInput {
  recordKeys: string[];
  /** Set node.startup=manual instead of deleting. */
  manual: boolean;
}

function resolve(ref: string, s: Snapshot): NodeRecord[] {
  const direct = recordByKey(s, ref);
  if (direct) return [direct];
  const found = onTarget(s.nodeRecords, parseTargetRef(ref));
  if (found.length === 0)
    throw new UserError(
      `no node record for ${ref}`,
      'see iscsiadm -m node, or iscsi-console status --json (nodeRecords)',
    );
  return found;
}

export const forgetAction: ActionDef<ForgetInput> = {
  id: 'forget',
  title: 'Forget node record',
  key: 'z',
  scopes: ['record'],
  destructive: true,
  summary: 'Delete node records (or set node.startup=manual with --manual) so they stop coming back at boot',
  usage: 'forget <iqn[@portal]|record-key>... [--manual]',
  cliOptions: [
    { name: 'manual', type: 'boolean', description: 'forget: keep the record but set node.startup=manual' },
  ],
  examples: [
    'iscsi-console forget iqn.2024-01.lab.example:storage.target2 --write',
    'iscsi-console forget iqn.2024-01.lab.example:storage.target2@127.0.0.1:3260 --manual --write',
  ],
  inputFromCli(positionals, o, s) {
    if (positionals.length === 0) throw new UserError('forget needs <iqn[@portal]>');
    return {
      recordKeys: [...new Set(positionals.flatMap((p) => resolve(p, s).map(recordKey)))],
      manual: o.manual === true,
    };
  },
  inputFromSelection(sel, s) {
    return { recordKeys: resolve(sel.key, s).map(recordKey), manual: false };
  },
  intentsFromSelections(sels, s) {
    return [
      { recordKeys: [...new Set(sels.flatMap((sel) => resolve(sel.key, s).map(recordKey)))], manual: false },
    ];
  },
  plan(input, s: Snapshot, ctx) {
    const records = input.recordKeys.map((k) => {
      const r = recordByKey(s, k);
      if (!r) throw new UserError(`no node record ${k}`);
      return r;
    });
    const plan = newPlan(
      'forget',
      input.manual ? 'Set node.startup=manual' : 'Delete node records',
      records.map((r) => fingerprintText(recordKey(r))).join('; '),
      ctx,
    );
    if (input.manual) plan.risk = 'low';
    else destructive(plan, 'medium', s.node.hostname);
    plan.lockKeys = [...new Set(records.map((r) => r.targetIqn))];
    for (const r of records) {
      const rk = recordKey(r);
      addUnique(plan.blastRadius.nodeRecords, fingerprintText(rk));
      addUnique(plan.before, rk);
      const base = nodeArgv(r.portal, r.targetIqn, r.iface);
      if (input.manual) {
        if (r.startup === 'manual') plan.warnings.push(`${rk} already has node.startup=manual`);
        addStep(plan, {
          id: `startup-manual:${r.portal}`,
          why: 'stop iscsid from logging in at boot (kubelet sets this after every login)',
          argv: recordUpdateArgv(base, 'node.startup', 'manual'),
          effect: { kind: 'record-update', record: rk },
          timeoutMs: TIMEOUTS.iscsiadm,
          preconditions: [pre('record-present', `record ${rk} exists`, rk)],
        });
        plan.expect!.push(pre('record-startup', `${rk} has node.startup=manual`, rk, 'manual'));
        plan.undo.push(shellLine(recordUpdateArgv(base, 'node.startup', r.startup ?? 'automatic')));
        continue;
      }
      const live = s.sessions.find(
        (x) => x.targetIqn === r.targetIqn && x.portal === r.portal && x.iface === r.iface,
      );
      if (live) {
        plan.refusals.push({
          id: 'session-active',
          reason: `session ${live.sid} uses record ${rk}`,
          hint: `log out first (iscsi-console logout ${live.sid}), or use --manual to only stop boot-time logins`,
          overridable: false,
        });
      }
      addStep(plan, {
        id: `delete-record:${r.portal}`,
        why: `delete the node record (${r.startup === 'automatic' ? 'it logs in at every boot' : 'unused'})`,
        argv: recordOpArgv(base, 'delete'),
        effect: { kind: 'record-delete', record: rk },
        okExitCodes: [21],
        timeoutMs: TIMEOUTS.iscsiadm,
        preconditions: live
          ? []
          : [pre('session-absent', `no session uses ${rk}`, `${r.targetIqn}|${r.portal}|${r.iface}`)],
        doneIf: [pre('record-absent', `record ${rk} is gone`, rk)],
      });
      plan.expect!.push(pre('record-absent', `record ${rk} is deleted`, rk));
      plan.undo.push(shellLine(discoverArgv(r.portal, r.iface)));
    }
    return plan;
  },
};
