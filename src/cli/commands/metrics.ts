import { metricsText } from '../../engine/metrics/index.js';
import { takeSnapshot } from '../../engine/snapshot/index.js';
import { addMultipathTopology } from '../../engine/snapshot/multipath-topology.js';
import type { Command } from '../command.js';
import { MAX_SESSIONS_OPTION, readMaxSessions } from '../metrics-options.js';
import { writeTextfile } from '../textfile.js';
import { VERSION } from '../version.js';

/** `iscsi-console metrics [--textfile FILE]`: one snapshot as Prometheus metrics (docs/metrics.md). */
export const metricsCommand: Command = {
  name: 'metrics',
  summary: 'Print one snapshot as Prometheus metrics, or write it for node_exporter’s textfile collector',
  usage: 'metrics [--textfile FILE] [--max-sessions N]',
  options: [
    {
      name: 'textfile',
      type: 'string',
      valueName: 'FILE',
      description:
        'Write FILE (*.prom) for node_exporter --collector.textfile.directory: a temp file in the same directory, renamed over FILE (never partial), mode 0644',
    },
    MAX_SESSIONS_OPTION,
  ],
  examples: [
    'iscsi-console metrics',
    'iscsi-console metrics --textfile /var/lib/node-exporter/textfile/iscsi.prom --root /host',
    'iscsi-console metrics --demo outage | promtool check metrics',
  ],
  description:
    'Reads the node once (as `status` does) and prints the Prometheus text exposition format 0.0.4. ' +
    'Every family is an iscsi_ metric with fixed labels: a stable contract for alert rules. Exit codes as for status.',
  async run(ctx, args) {
    const maxSessions = readMaxSessions(args.options);
    const textfile = args.options.textfile;
    const snap = takeSnapshot(ctx.host, { kubeletRoot: ctx.globals.kubeletRoot });
    await addMultipathTopology(ctx.host, snap, ctx.host.kind !== 'root' || ctx.globals.exec !== 'direct');
    const text = metricsText(snap, { version: VERSION, maxSessions });
    if (typeof textfile === 'string') writeTextfile(textfile, text);
    else ctx.out.stdout(text);
    return 0;
  },
};
