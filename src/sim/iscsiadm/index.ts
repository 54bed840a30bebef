import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { ISCSI_VERSION } from '../iscsid/node-db.js';
import { parseIscsiadmArgs } from './args.js';
import { discoveryMode } from './discovery-mode.js';
import { ifaceMode } from './iface-mode.js';
import { DB_LOCKED } from './messages.js';
import { nodeMode } from './node-mode.js';
import { sessionMode } from './session-mode.js';

/** Does this call take the node DB write lock (idbm_lock)? Reads and session listings do not. */
function writesDb(a: ReturnType<typeof parseIscsiadmArgs>): boolean {
  if (a.mode === 'session') return false;
  return a.ops.some((o) => o !== 'show') || a.discover || a.login || (a.mode === 'discovery' && !!a.portal);
}

/** The simulated `iscsiadm` (open-iscsi 2.1.8). */
export function iscsiadm(ctx: SimContext, argv: readonly string[]): ToolResult {
  const a = parseIscsiadmArgs(argv);
  if (a.version) return ok(`iscsiadm version ${ISCSI_VERSION}\n`);
  if (a.invalid) return fail(7, `iscsiadm: unrecognized option '${a.invalid}'\n`);
  // A held lock.write makes real iscsiadm wait up to 30 s, then fail: the simulation fails at once.
  if ((ctx.faults.dbLocked || ctx.db.locked()) && writesDb(a)) return fail(6, DB_LOCKED);
  ctx.db.reload();
  switch (a.mode) {
    case 'session':
      return sessionMode(ctx, a);
    case 'node':
      return nodeMode(ctx, a);
    case 'discovery':
      return discoveryMode(ctx, a, true);
    case 'discoverydb':
      return discoveryMode(ctx, a, false);
    case 'iface':
      return ifaceMode(ctx, a);
    case undefined:
      return fail(7, 'iscsiadm: No mode given. Try iscsiadm --help.\n');
    default:
      return fail(7, `iscsiadm: Invalid mode '${a.mode}'\n`);
  }
}
