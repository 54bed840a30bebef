/**
 * logout: one session, or all portals of a target, in kubelet's order (detachISCSIDisk docs/kubelet-iscsi.md#logout-and-record-delete),
 * with devices deleted first and the node record and cloned iface removed after.
 */
import { UserError } from '../errors.js';
import type { Session, Snapshot } from '../model.js';
import { addCsiRefusals } from './csi-claims.js';
import { findSession, findTargetSessions } from './lookup.js';
import { destructive, newPlan } from './plan-kit.js';
import { addSessionRefusals, addSessionTeardown } from './session-teardown.js';
import type { ActionDef } from './types.js';

interface LogoutInput {
  sessionKeys: string[];
}

function resolve(ref: string, s: Snapshot): Session[] {
  if (/^(session)?\[?\d+\]?$/.test(ref)) return [findSession(s, ref)];
  if (ref.includes('|')) return [findSession(s, ref)];
  const t = findTargetSessions(s, ref);
  if (t.sessions.length === 0) {
    throw new UserError(
      `no session to ${ref}`,
      'give a sid, an IQN (all portals) or IQN@PORTAL; see iscsi-console status',
    );
  }
  return t.sessions;
}

export const logoutAction: ActionDef<LogoutInput> = {
  id: 'logout',
  title: 'Log out',
  key: 'l',
  scopes: ['session'],
  destructive: true,
  summary:
    'Log out a session or all portals of a target (devices deleted first, node record and cloned iface after)',
  usage: 'logout <sid|iqn[@portal]>...',
  cliOptions: [],
  examples: [
    'iscsi-console logout 7 --write',
    'iscsi-console logout iqn.2024-01.lab.example:storage.target1 --write   # all portals',
    'iscsi-console logout iqn.2024-01.lab.example:storage.target1@[fd00::1]:3260 --dry-run',
  ],
  inputFromCli(positionals, _o, s) {
    if (positionals.length === 0) throw new UserError('logout needs <sid|iqn[@portal]>');
    const keys = [...new Set(positionals.flatMap((p) => resolve(p, s).map((x) => x.key)))];
    return { sessionKeys: keys };
  },
  inputFromSelection(sel, s) {
    return { sessionKeys: [findSession(s, sel.key).key] };
  },
  intentsFromSelections(sels, s) {
    // One logout of every marked session, in the node's order: both sessions of a target are
    // exactly `logout <iqn>`, which flushes the target's maps before their last path goes.
    const keys = new Set(sels.map((sel) => findSession(s, sel.key).key));
    return [{ sessionKeys: s.sessions.filter((x) => keys.has(x.key)).map((x) => x.key) }];
  },
  plan(input, s: Snapshot, ctx) {
    const sessions = input.sessionKeys.map((k) => findSession(s, k));
    const first = sessions[0]!;
    const subject =
      sessions.length === 1
        ? `session ${first.sid} ${first.targetIqn} @ ${first.portal}`
        : `sessions ${sessions.map((x) => x.sid).join(', ')} (${[...new Set(sessions.map((x) => x.targetIqn))].join(', ')})`;
    const plan = newPlan('logout', 'Log out', subject, ctx);
    destructive(plan, 'high', sessions.length === 1 ? String(first.sid) : s.node.hostname);
    plan.lockKeys = [...new Set(sessions.map((x) => x.targetIqn))];
    addSessionRefusals(plan, s, sessions);
    addCsiRefusals(plan, s, sessions);
    for (const x of sessions) {
      if (x.verdict !== 'in-use' && x.kubeletVolumes.length > 0) {
        plan.warnings.push(
          `kubelet dirs still refer to session ${x.sid}: ${x.kubeletVolumes.join(', ')} — use \`cleanup ${x.sid}\` to remove them too`,
        );
      }
    }
    addSessionTeardown(plan, s, sessions);
    return plan;
  },
};
