import { iscsidRunning } from '../../engine/doctor/checks/daemons.js';
import { runDoctor } from '../../engine/doctor/index.js';
import {
  type CheckResult,
  CONDITIONS,
  type Condition,
  doctorCondition,
  iscsidCondition,
  NPD_UNKNOWN,
  npdLine,
  type SnapshotCondition,
  snapshotCondition,
} from '../../engine/npd/conditions.js';
import { takeSnapshot } from '../../engine/snapshot/index.js';
import type { Command, CommandContext } from '../command.js';

/** How long a doctor command may take: NPD kills a plugin after 5 s (its default timeout). */
const CHECK_COMMAND_TIMEOUT_MS = 2_000;

async function evaluate(ctx: CommandContext, c: Condition): Promise<CheckResult> {
  const options = {
    kubeletRoot: ctx.globals.kubeletRoot,
    exec: ctx.globals.exec,
    timeoutMs: CHECK_COMMAND_TIMEOUT_MS,
  };
  if (c === 'doctor') return doctorCondition(await runDoctor(ctx.host, options));
  if (c === 'iscsid') return iscsidCondition(await runDoctor(ctx.host, options, [iscsidRunning]));
  // Sysfs, mounts and kubelet files only: no multipathd or dmsetup call (failed paths are in sysfs).
  return snapshotCondition(
    c as SnapshotCondition,
    takeSnapshot(ctx.host, { kubeletRoot: ctx.globals.kubeletRoot }),
  );
}

/** `iscsi-console check CONDITION`: a node-problem-detector custom plugin (deploy/npd/). */
export const checkCommand: Command = {
  name: 'check',
  summary: 'node-problem-detector plugin: exit 1 when the condition holds, 0 when not, 2 when unknown',
  usage: `check <${CONDITIONS.join('|')}>`,
  options: [],
  examples: ['iscsi-console check outage', 'iscsi-console check failed --root /host'],
  description:
    'The custom-plugin contract of node-problem-detector: exit 0 when the condition is false, 1 when it is true, ' +
    '2 when it cannot be told; one line on stdout (at most 80 characters) naming the most important object. ' +
    `Conditions: outage (a portal whose every session is down), failed (sessions failed), degraded (a multipath map ` +
    `or session lost some paths), stale (stale or orphaned sessions), iscsid (iscsid not running), doctor (a doctor check failed).`,
  async run(ctx, args) {
    const c = args.positionals[0];
    if (args.positionals.length !== 1 || !(CONDITIONS as readonly string[]).includes(c ?? '')) {
      ctx.out.stdout(`${npdLine(`usage: check <${CONDITIONS.join('|')}>`)}\n`);
      return NPD_UNKNOWN;
    }
    let r: CheckResult;
    try {
      r = await evaluate(ctx, c as Condition);
    } catch (e) {
      // Whatever went wrong, NPD must read "unknown", never "condition true" (exit 1 is a bug elsewhere).
      r = { status: NPD_UNKNOWN, line: npdLine(`cannot tell: ${(e as Error)?.message ?? String(e)}`) };
    }
    ctx.out.stdout(`${r.line}\n`);
    return r.status;
  },
};
