/**
 * The one construction of an ActionContext (what planners and applyPlan need besides the
 * snapshot), used by the CLI's action commands and the console's backend alike: the fresh
 * snapshot applyPlan re-checks each step against is always read the same way.
 */
import type { Host } from '../host/host.js';
import { takeSnapshot } from '../snapshot/index.js';
import type { ActionContext } from './types.js';

interface ActionContextOptions {
  host: Host;
  kubeletRoot: string;
  stateDir: string;
  /** The admin enabled writes; otherwise every plan is refused as read-only. */
  write: boolean;
  /** Plan only: the executor refuses every step that would change the node. */
  dryRun?: boolean;
}

export function actionContext(o: ActionContextOptions): ActionContext {
  return {
    host: o.host,
    kubeletRoot: o.kubeletRoot,
    stateDir: o.stateDir,
    write: o.write,
    ...(o.dryRun ? { dryRun: true } : {}),
    takeSnapshot: () => takeSnapshot(o.host, { kubeletRoot: o.kubeletRoot }),
  };
}
