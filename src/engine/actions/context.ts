/**
 * The one construction of an ActionContext (what planners and applyPlan need besides the
 * snapshot), used by the CLI's action commands and the console's backend alike: the fresh
 * snapshot applyPlan re-checks each step against is always read the same way.
 */
import type { Host } from '../host/host.js';
import { createProber, type Prober } from '../probe/prober.js';
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
  /** The admin asked for the live probe (`status --probe`, the console's key); write mode implies it. */
  probe?: boolean;
  /** A prober to share (the console's: its results are in the watcher's reads too). */
  prober?: Prober;
  /** The probe's clock (default the Host's). */
  now?: () => number;
}

export function actionContext(o: ActionContextOptions): ActionContext {
  // Only in write mode or when asked: a read-only look never sends anything to the network.
  const prober =
    o.prober ??
    (o.write || o.probe ? createProber({ host: o.host, now: o.now ?? (() => o.host.now()) }) : undefined);
  return {
    host: o.host,
    kubeletRoot: o.kubeletRoot,
    stateDir: o.stateDir,
    write: o.write,
    ...(o.dryRun ? { dryRun: true } : {}),
    ...(prober ? { prober } : {}),
    takeSnapshot: () =>
      takeSnapshot(o.host, { kubeletRoot: o.kubeletRoot, ...(prober ? { probes: prober.results() } : {}) }),
  };
}
