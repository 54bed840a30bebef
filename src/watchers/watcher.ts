/**
 * The live watcher: keeps one NodeStore current from every source of change, cheaply. This file
 * only wires the parts together; each part is one file:
 *
 * - `sysfs-poll` and `mountinfo`: the poll pipeline (poll-pipeline.ts), ticked by poll-timer.ts
 *   every `refreshMs` on a steady cadence: a cheap probe of session/device states and block names
 *   (sysfs-probe.ts) and of mounts (proc-probe.ts); a read only when what it saw moves, of only the
 *   sessions that moved when the probe can name them (node-reader.ts: ~0.2 s instead of ~1.5 s at
 *   1,000 sessions × 4 LUNs), in full at most every `fullRefreshMs`. State changes the probe already
 *   proves are published at once and the read's copy dropped by event identity (announcer.ts).
 * - `udev`: `udevadm monitor --kernel` for immediate add/remove, when the host can stream commands
 *   (udev-source.ts).
 * - `kubelet-files`, `node-db`: chokidar (native) on kubelet's iSCSI dirs and the open-iscsi DB
 *   (file-sources.ts; file-watch.ts says why shallow).
 * - actions: `runAction` (action-runner.ts) refreshes after every applied step.
 * Every source asks the one refresher (refresher.ts); health.sources says which are live
 * (source-health.ts); every event is worded in events.ts.
 *
 * The same code runs on a real node, a `--root` tree and the simulator: everything goes through the
 * Host seam; only chokidar needs a real path (`under(host.root, ...)`).
 */
import type { ActionContext, ApplyOptions, ApplyResult, Plan } from '../engine/actions/types.js';
import type { Host } from '../engine/host/host.js';
import type { PortalProbe, Snapshot } from '../engine/model.js';
import {
  refreshSnapshot as engineRefreshSnapshot,
  takeSnapshot as engineTakeSnapshot,
  ISCSI_DB_ROOTS,
} from '../engine/snapshot/index.js';
import { followMultipathTopology } from '../engine/snapshot/multipath-topology.js';
import { type ApplyPlanFn, createActionRunner } from './action-runner.js';
import { pollFailed, problemsAtStart, watchingSummary } from './events.js';
import { createFileSources } from './file-sources.js';
import { fileSources } from './file-watch.js';
import { createNodeReader, readEngines, TOPOLOGY_READ } from './node-reader.js';
import { type Pacer, realPacer } from './pacer.js';
import { createPollPipeline } from './poll-pipeline.js';
import { createPollTimer } from './poll-timer.js';
import { createSourceHealth } from './source-health.js';
import { createNodeStore, type NodeStore } from './store.js';
import { startUdevSource, type UdevSource } from './udev-source.js';

export const DEFAULT_REFRESH_MS = 2_000;
/**
 * At most this long between full snapshots while refreshes happen: the incremental refresh keeps
 * what the probe does not see (connection addresses, host attributes), so those catch up here.
 * Idle nodes take no snapshot at all, as before.
 */
const DEFAULT_FULL_REFRESH_MS = 60_000;

export interface WatcherOptions {
  host: Host;
  /** Host path of the kubelet root. */
  kubeletRoot: string;
  /** Poll interval, ms (default 2,000; `--refresh`). */
  refreshMs?: number;
  /** An existing store to feed (else one is created with the host's clock). */
  store?: NodeStore;
  /** Run the poll on a timer (default true). Tests and benchmarks drive `poll()` themselves. */
  autoPoll?: boolean;
  /**
   * `udevadm monitor`, or the simulator's emulated uevents. Default: on for a real node and the
   * simulator; off for a `--root` tree, whose uevents are another machine's unless the commands run
   * in the host's namespaces (`--exec nsenter|chroot`: the caller then passes true).
   */
  udev?: boolean;
  /** chokidar on kubelet dirs and the node DB (default true). */
  files?: boolean;
  /** Delay that coalesces bursts of uevents and file events before one refresh (default 50 ms). */
  settleMs?: number;
  /**
   * The live probe's latest results (src/engine/probe/prober.ts), read into every snapshot once the
   * admin asked for a probe: they tell a portal outage from sessions stuck while it answers.
   */
  probes?: () => readonly PortalProbe[];
  /** Read engine (injectable for unit tests). */
  takeSnapshot?: (host: Host, options: { kubeletRoot: string }) => Snapshot;
  /**
   * Incremental read engine (injectable for unit tests). Used by default only with the default
   * `takeSnapshot`: an injected full reader alone means every refresh is a full read.
   */
  refreshSnapshot?: typeof engineRefreshSnapshot;
  /** Longest time between full snapshots while refreshing, ms (default 60,000; 0: always full). */
  fullRefreshMs?: number;
  /**
   * The clock of the poll cadence, the settle delay and (for a store created here) the publication
   * pace; default real timers. Tests pass one they drive by hand.
   */
  pacer?: Pacer;
  /** Action engine (injectable for unit tests). */
  applyPlan?: ApplyPlanFn;
}

export interface Watcher {
  store: NodeStore;
  /** Resolves after the first snapshot is in the store and the file watchers are ready. */
  ready: Promise<void>;
  /** Re-reads the node now; resolves once the store holds the result (published at the next flush). */
  refreshNow(reason?: string): Promise<void>;
  /** One poll tick (what the timer runs); resolves true when it caused a refresh, after it finished. */
  poll(): Promise<boolean>;
  /** Stops every source; the store keeps its last state (queued changes are published). */
  stop(): Promise<void>;
  /** Applies a plan, tracked in `store.actions` with live step progress; refreshes after each step. */
  runAction(plan: Plan, ctx: ActionContext, options?: ApplyOptions): Promise<ApplyResult>;
}

/** Starts watching. Returns at once; `ready` says when the first snapshot is in. */
export function startWatcher(options: WatcherOptions): Watcher {
  const { host, kubeletRoot } = options;
  const refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  const autoPoll = options.autoPoll !== false;
  const pacer = options.pacer ?? realPacer;
  const store = options.store ?? createNodeStore({ now: () => host.now(), pacer });
  let stopped = false;
  const isStopped = () => stopped;
  const health = createSourceHealth(store, isStopped);

  // --- the poll pipeline: probe → (incremental) snapshot → diff → store ---------------------
  const reader = createNodeReader({
    host,
    kubeletRoot,
    ...readEngines(options.takeSnapshot, options.refreshSnapshot, {
      take: engineTakeSnapshot,
      refresh: engineRefreshSnapshot,
    }),
    fullRefreshMs: options.fullRefreshMs ?? DEFAULT_FULL_REFRESH_MS,
    ...(options.probes ? { probes: options.probes } : {}),
  });
  // `files` (below) needs the pipeline's refresher; the pipeline calls it only once ticks run.
  const pipeline = createPollPipeline({
    host,
    store,
    reader,
    health,
    settleMs: options.settleMs ?? 50,
    pacer,
    stopped: isStopped,
    onTick: () => files.startMissing(),
    // Path groups and states come from multipathd/dmsetup, read asynchronously when the maps or
    // their paths changed (multipath-topology.ts); a read that found something new re-reads the
    // node to carry it, a renewal that found the same does not.
    onSnapshot: (snapshot) =>
      followMultipathTopology(
        host,
        snapshot,
        (changed) => void (stopped || !changed ? undefined : refresher.request(TOPOLOGY_READ)),
        options.udev ?? host.kind !== 'root',
      ),
  });
  const { refresher } = pipeline;
  const timer = createPollTimer(
    refreshMs,
    pipeline.poll,
    (e) => health.fail(pollFailed((e as Error)?.message ?? String(e))),
    pacer,
  );

  // --- sources ------------------------------------------------------------------------------
  const files = createFileSources({
    host,
    specs: options.files === false ? [] : fileSources(kubeletRoot, ISCSI_DB_ROOTS),
    refresher,
    health,
    read: pipeline.read,
  });
  let udev: UdevSource | undefined;
  if (options.udev ?? host.kind !== 'root') {
    udev = startUdevSource(
      host,
      (e) => refresher.soon(`uevent ${e.action} ${e.devpath}`),
      (active, detail) => health.set('udev', active, detail),
    );
  } else {
    health.set('udev', false, 'off for this host; add/remove seen by the sysfs poll');
  }
  health.set(
    'sysfs-poll',
    autoPoll,
    autoPoll ? `every ${refreshMs} ms: session and device states, block names` : 'driven by caller',
  );
  health.set('mountinfo', true, 'read on each poll tick (block-backed mounts, swap areas)');
  files.startMissing();

  // --- start --------------------------------------------------------------------------------
  const ready = (async () => {
    await refresher.request('start');
    await files.ready();
    if (autoPoll) timer.start();
    store.flush();
    const first = store.getState();
    store.pushEvents([watchingSummary(first), ...(first.snapshot ? problemsAtStart(first.snapshot) : [])]);
    store.flush();
  })();

  return {
    store,
    ready,
    refreshNow: (reason = 'requested') => refresher.request(reason),
    poll: pipeline.poll,
    runAction: createActionRunner({ host, store, refresher, applyPlan: options.applyPlan }),
    async stop() {
      if (stopped) return;
      stopped = true;
      timer.stop();
      refresher.cancel();
      await Promise.all([udev?.stop(), files.close()]);
      await ready.catch(() => undefined);
      await refresher.idle();
      pipeline.close();
      for (const s of health.all()) health.set(s.name, false, 'stopped');
      store.flush();
    },
  };
}
