import { actionContext } from '../../engine/actions/context.js';
import { UserError } from '../../engine/errors.js';
import { writeJson } from '../../engine/json-chunks.js';
import { probedSnapshot } from '../../engine/probe/probed-snapshot.js';
import { takeSnapshot } from '../../engine/snapshot/index.js';
import { addMultipathTopology } from '../../engine/snapshot/multipath-topology.js';
import { SESSION_FILTER_FIELDS } from '../../engine/snapshot/session-fields.js';
import type { Command } from '../command.js';
import { columnsOf, DEFAULT_COLUMNS, pickFields } from './status-columns.js';
import { narrowSnapshot, statusSelection } from './status-select.js';

/** `iscsi-console status [--json]`: one snapshot of the node, as a table or as JSON (docs/status-schema.md). */
export const statusCommand: Command = {
  name: 'status',
  summary: "Show every iSCSI session, its devices, kubelet's view and a verdict",
  usage:
    'status [--json] [--probe] [--problems] [--sid N] [--target IQN] [--verdict V] [--filter EXPR] [--columns a,b,c]',
  options: [
    {
      name: 'problems',
      type: 'boolean',
      description: 'Only sessions with a problem (what the summary line counts)',
    },
    {
      name: 'sid',
      type: 'string',
      multiple: true,
      valueName: 'N[,N]',
      description: 'Only these sessions (repeat or comma-separate)',
    },
    {
      name: 'target',
      type: 'string',
      multiple: true,
      valueName: 'IQN',
      description: 'Only sessions to this target: the whole IQN or any part of it (repeat for either)',
    },
    {
      name: 'verdict',
      type: 'string',
      multiple: true,
      valueName: 'V[,V]',
      description: 'Only sessions with this verdict: in-use, foreign, orphaned, outage, stale, claimed',
    },
    {
      name: 'filter',
      type: 'string',
      valueName: 'EXPR',
      description: `The console's / filter on sessions: words anywhere, field=a|b, field!=v, a leading ! inverts; fields: ${SESSION_FILTER_FIELDS.join(', ')}`,
    },
    {
      name: 'columns',
      type: 'string',
      valueName: 'a,b,c',
      description: `The sessions table's columns, by status --json field name (the headers are those names; with --json each session keeps only these fields); default ${DEFAULT_COLUMNS.join(',')}`,
    },
    {
      name: 'probe',
      type: 'boolean',
      description:
        'Probe the portals of down sessions live (a TCP connect, then a SendTargets that stores nothing; at most 5 s per portal, in parallel) to tell a portal outage from stuck sessions. Never done without this flag; refused for a --root tree read with --exec direct',
    },
  ],
  examples: [
    'iscsi-console status',
    'iscsi-console status --problems',
    'iscsi-console status --target kafka --columns sid,portal,state,devices,health',
    'iscsi-console status --filter "health=failed|degraded portal=10.0.0.11"',
    'iscsi-console status --verdict stale,orphaned --json | jq ".sessions[].sid"',
    'iscsi-console status --json --root /host',
    'iscsi-console status --json | jq .sessions',
  ],
  description:
    'Reads sysfs, the mount table, the udev database, the kubelet tree and the open-iscsi DB (no iscsiadm; ' +
    'multipath path groups from multipathd, or dmsetup, once with a timeout — never multipath -ll) and explains each session: ' +
    'verdict in-use | foreign | orphaned | outage | stale | claimed and health ok | degraded | failed, with reasons. ' +
    // The schema: docs/status-schema.md (not shipped with the binary, so not named here).
    '--json prints one document {schemaVersion: 2, ...}: the fields stay stable within a schema version. ' +
    'The filters (--problems, --sid, --target, --verdict, --filter; all must match) narrow the sessions and what belongs to ' +
    'them (their kubelet, pod and CSI volumes, multipath maps) in the text and in --json, where `selection` says what was asked; ' +
    "the summary line stays the whole node's. A bad value or an unknown field is exit 2.",
  async run(ctx, args) {
    const o = args.options;
    // Usage errors before the node is read: --columns is checked against the schema, not the node.
    const columns = columnsOf(o);
    let snap = takeSnapshot(ctx.host, { kubeletRoot: ctx.globals.kubeletRoot });
    if (o.probe === true) {
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
    const selection = statusSelection(o, snap);
    const shown = selection ? narrowSnapshot(snap, selection) : snap;
    if (ctx.globals.json) {
      const doc =
        selection || columns
          ? {
              ...shown,
              ...(columns ? { sessions: shown.sessions.map((s) => pickFields(s, columns)) } : {}),
              ...(selection
                ? {
                    selection: {
                      filters: selection.said,
                      sessions: shown.sessions.length,
                      of: snap.sessions.length,
                    },
                  }
                : {}),
            }
          : snap;
      // Written by parts (json-chunks.ts): ~11 MB at 1,000 sessions, never one string.
      writeJson(doc, (chunk) => ctx.out.stdout(chunk), '\n');
      return 0;
    }
    const { ansiPaint, formatStatus } = await import('./status-text.js');
    ctx.out.stdout(
      formatStatus(shown, ansiPaint(!ctx.globals.noColor && ctx.out.isTTY), {
        ...(selection ? { node: snap, said: selection.said } : {}),
        ...(columns ? { columns } : {}),
        ...(ctx.demoNote ? { note: ctx.demoNote } : {}),
      }),
    );
    return 0;
  },
};
