import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { ISCSI_VERSION } from '../iscsid/node-db.js';
import { parseIscsiadmArgs } from './args.js';
import { discoveryMode } from './discovery-mode.js';
import { ifaceMode } from './iface-mode.js';
import { DB_LOCKED } from './messages.js';
import { nodeMode } from './node-mode.js';
import { sessionMode } from './session-mode.js';

type IscsiadmArgs = ReturnType<typeof parseIscsiadmArgs>;

/** Does this call take the node DB write lock (idbm_lock)? Reads and session listings do not. */
function writesDb(a: IscsiadmArgs): boolean {
  if (a.mode === 'session') return false;
  return a.ops.some((o) => o !== 'show') || a.discover || a.login || (a.mode === 'discovery' && !!a.portal);
}

/** The modes the simulation knows, as `-m` names them (discovery without a record, discoverydb with one). */
const MODES = new Map<string, (ctx: SimContext, a: IscsiadmArgs) => ToolResult>([
  ['session', sessionMode],
  ['node', nodeMode],
  ['discovery', (ctx, a) => discoveryMode(ctx, a, true)],
  ['discoverydb', (ctx, a) => discoveryMode(ctx, a, false)],
  ['iface', ifaceMode],
]);

/** The simulated `iscsiadm` (open-iscsi 2.1.8). */
export function iscsiadm(ctx: SimContext, argv: readonly string[]): ToolResult {
  const a = parseIscsiadmArgs(argv);
  if (a.version) return ok(`iscsiadm version ${ISCSI_VERSION}\n`);
  if (a.invalid) return fail(7, `iscsiadm: unrecognized option '${a.invalid}'\n`);
  // A held lock.write makes real iscsiadm wait up to 30 s, then fail: the simulation fails at once.
  if ((ctx.faults.dbLocked || ctx.db.locked()) && writesDb(a)) return fail(6, DB_LOCKED);
  ctx.db.reload();
  if (a.mode === undefined) return fail(7, 'iscsiadm: No mode given. Try iscsiadm --help.\n');
  const run = MODES.get(a.mode);
  return run ? run(ctx, a) : fail(7, `iscsiadm: Invalid mode '${a.mode}'\n`);
}
