import { actionContext } from '../../engine/actions/context.js';
import { UserError } from '../../engine/errors.js';
import { probedSnapshot } from '../../engine/probe/probed-snapshot.js';
import { takeSnapshot } from '../../engine/snapshot/index.js';
import { addMultipathTopology } from '../../engine/snapshot/multipath-topology.js';
import { statusJson } from '../../engine/snapshot/status-json.js';
import type { Command } from '../command.js';

/** `iscsi-console status [--json]`: one snapshot of the node, as a table or as JSON (docs/status-schema.md). */
export const statusCommand: Command = {
  name: 'status',
  summary: "Show every iSCSI session, its devices, kubelet's view and a verdict",
  usage: 'status [--json] [--probe]',
  options: [
    {
      name: 'probe',
      type: 'boolean',
      description:
        'Probe the portals of down sessions live (a TCP connect, then a SendTargets that stores nothing; at most 5 s per portal, in parallel) to tell a portal outage from stuck sessions. Never done without this flag; refused for a --root tree read with --exec direct',
    },
  ],
  examples: [
    'iscsi-console status',
    'iscsi-console status --json --root /host',
    'iscsi-console status --json | jq .sessions',
  ],
  description:
    'Reads sysfs, the mount table, the udev database, the kubelet tree and the open-iscsi DB (no iscsiadm; ' +
    'multipath path groups from multipathd, or dmsetup, once with a timeout — never multipath -ll) and explains each session: ' +
    'verdict in-use | foreign | orphaned | outage | stale | claimed and health ok | degraded | failed, with reasons. ' +
    // The schema: docs/status-schema.md (not shipped with the binary, so not named here).
    '--json prints one document {schemaVersion: 2, ...}: the fields stay stable within a schema version.',
  async run(ctx, args) {
    let snap = takeSnapshot(ctx.host, { kubeletRoot: ctx.globals.kubeletRoot });
    if ((args.options as Record<string, unknown>).probe === true) {
      if (ctx.host.kind === 'root' && ctx.globals.exec === 'direct')
        throw new UserError(
          `--probe sends to the network: ${ctx.host.root} is a --root tree read with --exec direct, not a live node`,
          'run it on the node, or in a debug pod with --exec nsenter',
        );
      const actx = actionContext({
        host: ctx.host,
        kubeletRoot: ctx.globals.kubeletRoot,
        stateDir: ctx.globals.stateDir,
        write: false,
        probe: true,
      });
      snap = await probedSnapshot(actx, snap);
    }
    // Path groups and states need multipathd or dmsetup (sysfs has none): asked once, with a
    // timeout, and only where commands reach the node read (not a --root tree with --exec direct).
    await addMultipathTopology(ctx.host, snap, ctx.host.kind !== 'root' || ctx.globals.exec !== 'direct');
    if (ctx.globals.json) {
      ctx.out.stdout(`${statusJson(snap)}\n`);
      return 0;
    }
    const { ansiPaint, formatStatus } = await import('./status-text.js');
    ctx.out.stdout(formatStatus(snap, ansiPaint(!ctx.globals.noColor && ctx.out.isTTY)));
    return 0;
  },
};
