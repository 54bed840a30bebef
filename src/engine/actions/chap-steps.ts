/**
 * The plan steps that give one open-iscsi record CHAP (a node record or a SendTargets discovery
 * record), shared by the attach and the LUN listing planners.
 */
import { recordUpdateArgv } from '../iscsiadm/argv.js';
import { recordOf } from './effects.js';
import { TIMEOUTS } from './plan-kit.js';
import type { PlanStep } from './types.js';

/**
 * CHAP for one record: authmethod through iscsiadm (no secret in it), then the credentials written
 * into the record file under iscsiadm's DB lock and read back masked — never `-v SECRET` on a
 * command line, where every local user can read it in /proc/<pid>/cmdline
 * (src/engine/iscsiadm/record-secrets.ts).
 */
export function chapSteps(
  base: string[],
  keys: readonly string[],
  present: readonly string[],
  group: string,
  target: { scope: 'node' | 'discovery'; iqn: string; portal: string; iface: string },
): PlanStep[] {
  const scope = target.scope === 'node' ? 'session' : 'discovery';
  const steps: PlanStep[] = [
    {
      id: `${scope}-authmethod:${group}`,
      // Order as kubelet's AttachDisk sets CHAP (docs/kubelet-iscsi.md#attachdisk).
      why: `${scope} CHAP: set authmethod first, as kubelet does`,
      argv: recordUpdateArgv(base, keys[0]!.replace(/username$/, 'authmethod'), 'CHAP'),
      effect: { kind: 'record-update', record: recordOf(target) },
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
      group,
    },
  ];
  const have = keys.filter((k) => present.includes(k));
  if (have.length === 0) return steps;
  const record =
    target.scope === 'node'
      ? `/etc/iscsi/nodes/${target.iqn}/<address>,<port>,<tpgt>/${target.iface}`
      : '/etc/iscsi/send_targets/<address>,<port>/st_config';
  steps.push({
    id: `${scope}-credentials:${group}`,
    why: `${scope} CHAP ${have.map((k) => k.split('.').pop()).join(', ')}: written into the record file under iscsiadm's DB lock and read back with -o show (never on a command line, never shown or journaled)`,
    write: { path: record, data: have.map((k) => `${k} = ********`).join('\n') },
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    group,
    dynamic: { kind: 'record-secrets', ...target, keys: have },
    // The record file's path is found at apply time (its tpgt dir, or the discovery record's).
    effect: { kind: 'at-apply', effects: ['write-file'] },
  });
  return steps;
}
