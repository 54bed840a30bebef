import { formatDoctorReport } from '../../engine/doctor/format.js';
import { runDoctor } from '../../engine/doctor/index.js';
import { ExitCode } from '../../engine/errors.js';
import type { Command } from '../command.js';

/** `iscsi-console doctor [--json]`: what is wrong with the node's iSCSI stack before any session is. */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'Check the node: iscsid, tool versions, modules, initiator name, namespaces, kubelet, records',
  usage: 'doctor [--json]',
  options: [],
  description:
    'Read-only. Each check prints ✓ (pass), ! (warning), ✗ (failure) or - (skipped) with its evidence and a hint.\n' +
    'Exit code 0 when no check failed, 3 when one did. --json prints {schemaVersion:1, checks, summary}.',
  examples: [
    'iscsi-console doctor',
    'iscsi-console doctor --json',
    'iscsi-console doctor --root /host --exec nsenter   # from a debug pod',
  ],
  async run(ctx) {
    const report = await runDoctor(ctx.host, {
      kubeletRoot: ctx.globals.kubeletRoot,
      exec: ctx.globals.exec,
    });
    // One line per document, like `status --json`: log collectors (DaemonSet output) take it as one record.
    if (ctx.globals.json) ctx.out.stdout(`${JSON.stringify(report)}\n`);
    else ctx.out.stdout(formatDoctorReport(report, { noColor: ctx.globals.noColor || !ctx.out.isTTY }));
    return report.summary.ok ? ExitCode.ok : ExitCode.refused;
  },
};
