/**
 * The live watcher: keeps one NodeStore current from every source of change, cheaply.
 *
 * - `sysfs-poll`: every `refreshMs` a cheap probe of session/device states and block names
 *   (sysfs-probe.ts); a snapshot only when what it saw moves. When the probe can name the
 *   sessions that changed (probe-diff.ts), only those are re-read (refreshSnapshot: ~0.2 s instead
 *   of ~1.5 s at 1,000 sessions × 4 LUNs, so the change shows within one interval); additions,
 *   removals, every other source and, at most every `fullRefreshMs`, a refresh read everything.
 *   A disk or session state change the probe already proves is published at once (probeEvents,
 *   worded as the snapshot diff words it); the refresh adds what follows and drops its own copy.
 *   Ticks keep a steady cadence, so a change waits at most one interval to be seen.
 * - `mountinfo`: the same tick reads /proc/1/mountinfo and /proc/swaps (proc-probe.ts).
 * - `udev`: `udevadm monitor --kernel` for immediate add/remove, when the host can stream commands.
 * - `kubelet-files`, `node-db`: chokidar (native) on kubelet's iSCSI dirs and the open-iscsi DB;
 *   shallow: dirs appearing and vanishing, not what a mounted dir holds (file-watch.ts says why).
 * - actions: `runAction` refreshes after every applied step.
 *
 * The same code runs on a real node, a `--root` tree and the simulator: everything goes through the
 * Host seam; only chokidar needs a real path (`under(host.root, ...)`).
 */
import type {
  ActionContext,
  ApplyOptions,
  ApplyResult,
  Plan,
  StepProgress,
} from '../engine/actions/types.js';
import type { Host } from '../engine/host/host.js';
import type { Snapshot } from '../engine/model.js';
import {
  refreshSnapshot as engineRefreshSnapshot,
  takeSnapshot as engineTakeSnapshot,
  ISCSI_DB_ROOTS,
} from '../engine/snapshot/index.js';
import { followMultipathTopology } from '../engine/snapshot/multipath-topology.js';
import { carryDownTimes } from '../engine/snapshot/outages.js';
import { type FileSourceSpec, type FileWatch, fileSources, startFileWatch } from './file-watch.js';
import {
  type Announcement,
  announcedSessions,
  diffProbes,
  probeEvents,
  sameProbe,
  settleAnnouncements,
} from './probe-diff.js';
import { type ProcProbe, probeProc } from './proc-probe.js';
import { createRefresher } from './refresher.js';
import { createNodeStore, type EventDraft, type NodeStore } from './store.js';
import { type ProbeDetail, type SysfsProbe, SysfsProber } from './sysfs-probe.js';
import type { SourceHealth, TrackedAction } from './types.js';
import { startUdevSource, type UdevSource } from './udev-source.js';

export const DEFAULT_REFRESH_MS = 2_000;
/**
 * At most this long between full snapshots while refreshes happen: the incremental refresh keeps
 * what the probe does not see (connection addresses, host attributes), so those catch up here.
 * Idle nodes take no snapshot at all, as before.
 */
export const DEFAULT_FULL_REFRESH_MS = 60_000;
/** Reasons the poll gives; a refresh for only these may be incremental. */
const SYSFS_CHANGED = 'sysfs changed';
const MOUNTS_CHANGED = 'mounts changed';

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
  /** Read engine (injectable for unit tests). */
  takeSnapshot?: (host: Host, options: { kubeletRoot: string }) => Snapshot;
  /**
   * Incremental read engine (injectable for unit tests). Used by default only with the default
   * `takeSnapshot`: an injected full reader alone means every refresh is a full read.
   */
  refreshSnapshot?: typeof engineRefreshSnapshot;
  /** Longest time between full snapshots while refreshing, ms (default 60,000; 0: always full). */
  fullRefreshMs?: number;
  /** Action engine (injectable for unit tests). */
  applyPlan?: (plan: Plan, ctx: ActionContext, options?: ApplyOptions) => Promise<ApplyResult>;
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
  const store = options.store ?? createNodeStore({ now: () => host.now() });
  const read = options.takeSnapshot ?? engineTakeSnapshot;
  const refresh = options.refreshSnapshot ?? (options.takeSnapshot ? undefined : engineRefreshSnapshot);
  const fullRefreshMs = options.fullRefreshMs ?? DEFAULT_FULL_REFRESH_MS;
  const prober = new SysfsProber(host);
  let stopped = false;
  // What the probe saw before the last refresh's read (compared list by list: sameProbe).
  let lastSysfs: ProbeDetail | undefined;
  // Events the poll published ahead of the snapshot carrying them (probeEvents), by text: the
  // snapshot's own diff drops its copy. Cleared once the refresh the poll asked for is in.
  const announced = new Map<string, Announcement>();
  // Sessions the next incremental refresh re-reads whatever the probes say (see poll).
  const recheck = new Set<number>();
  // The last snapshot read and the probe taken just before it: what an incremental read builds on.
  let lastRead: { snapshot: Snapshot; probe: SysfsProbe } | undefined;
  let lastFullAt = Number.NEGATIVE_INFINITY;
  // The poll's own probe, handed to the refresh it asks for (taken before that read, so just as
  // good as a new one, and a second probe of ~4,000 disks is what a change waits on at scale).
  let pollProbe: SysfsProbe | undefined;
  let lastProc: ProcProbe | undefined;
  let lastRefreshError: string | undefined;
  let actionSeq = 0;

  // --- health -------------------------------------------------------------------------------
  const sources = new Map<string, SourceHealth>();
  function setSource(name: string, active: boolean, detail?: string): void {
    const s: SourceHealth = detail === undefined ? { name, active } : { name, active, detail };
    const was = sources.get(name);
    if (was && was.active === s.active && was.detail === s.detail) return;
    sources.set(name, s);
    const list = [...sources.values()];
    store.update((st) => ({ health: { ...st.health, sources: list } }));
    // A source dying mid-run belongs in the timeline: changes it covered now wait for the poll.
    if (was?.active && !active && !stopped) {
      store.pushEvents([
        { kind: 'watcher', severity: 'warn', subject: name, message: `${name} inactive: ${detail ?? ''}` },
      ]);
    }
  }
  function fail(message: string, severity: 'warn' | 'error' = 'warn'): void {
    store.recordError(message);
    store.pushEvents([{ kind: 'watcher', severity, subject: 'watcher', message }]);
  }

  // --- refresh ------------------------------------------------------------------------------
  async function doRefresh(reason: string): Promise<void> {
    if (stopped) return;
    const done = store.beginBusy();
    // Let callers that asked in the same tick join this refresh, then read synchronously.
    await Promise.resolve();
    const started = performance.now();
    try {
      // Probe first: a change after this point shows in the next probe and is caught next tick.
      const probe = pollProbe ?? prober.probe();
      pollProbe = undefined;
      lastSysfs = probe.detail;
      lastProc = probeProc(host, lastProc);
      const snap = readNode(reason, probe);
      // The kernel keeps no failure time: an outage or a down session keeps the first read that saw it.
      carryDownTimes(lastRead?.snapshot ?? store.getState().snapshot, snap);
      lastRead = { snapshot: snap, probe };
      store.applySnapshot(snap, announced.size > 0 ? { drop: (e) => announced.delete(eventText(e)) } : {});
      // Path groups and states come from multipathd/dmsetup, read asynchronously when the maps or
      // their paths changed; the read's arrival re-reads the node so the snapshot carries it.
      followMultipathTopology(
        host,
        snap,
        () => void (stopped ? undefined : refresher.request('multipath topology read')),
        options.udev ?? host.kind !== 'root',
      );
      const ms = Math.round((performance.now() - started) * 100) / 100;
      store.update((st) => ({
        health: {
          ...st.health,
          lastRefreshAt: host.now(),
          lastRefreshMs: ms,
          refreshCount: st.health.refreshCount + 1,
        },
      }));
      if (lastRefreshError !== undefined) {
        store.pushEvents([
          { kind: 'watcher', severity: 'info', subject: 'watcher', message: 'refresh works again' },
        ]);
        lastRefreshError = undefined;
      }
    } catch (e) {
      lastRead = undefined;
      // takeSnapshot never throws for node state; this is a bug or an unreadable root. Say it once.
      const why = (e as Error)?.message ?? String(e);
      const message = `refresh failed: ${why} (after ${reason})`;
      if (why !== lastRefreshError) fail(message, 'error');
      else store.recordError(message);
      lastRefreshError = why;
    } finally {
      done();
    }
  }
  /**
   * Incremental when the refresh is the poll's alone (every other source may have changed anything)
   * and a full read is not due; the sessions to re-read come from the probe before the last read
   * against this one, so a change that landed after that probe is re-read now.
   */
  function readNode(reason: string, probe: SysfsProbe): Snapshot {
    const pollOnly = reason.split(', ').every((r) => r === SYSFS_CHANGED || r === MOUNTS_CHANGED);
    const now = host.now();
    if (refresh && lastRead && pollOnly && now - lastFullAt < fullRefreshMs) {
      let changed = diffProbes(lastRead.probe.detail, probe.detail);
      if (recheck.size > 0 && !changed.structural)
        changed = { sids: [...new Set([...changed.sids, ...recheck])], structural: false };
      recheck.clear();
      const r = refresh(host, { kubeletRoot }, lastRead.snapshot, changed);
      if (!r.incremental) lastFullAt = now;
      return r.snapshot;
    }
    lastFullAt = now;
    recheck.clear();
    return read(host, { kubeletRoot });
  }
  const refresher = createRefresher(doRefresh, options.settleMs ?? 50);

  // --- poll -----------------------------------------------------------------------------------
  async function poll(): Promise<boolean> {
    if (stopped) return false;
    const probe = prober.probe();
    const why: string[] = [];
    if (!lastSysfs || !sameProbe(probe.detail, lastSysfs)) {
      why.push(SYSFS_CHANGED);
      if (announce(probe)) {
        // Published now, and one turn of the event loop given to subscribers (the console's
        // frame), before the refresh reads synchronously for up to a second at scale.
        store.flush();
        await new Promise((r) => setImmediate(r));
        if (stopped) return false;
      }
    }
    const proc = probeProc(host, lastProc);
    startMissingFileWatches();
    if (proc.fingerprint !== lastProc?.fingerprint) why.push(MOUNTS_CHANGED);
    lastProc = proc;
    if (why.length === 0) return false;
    pollProbe = probe;
    try {
      await refresher.request(why.join(', '));
    } finally {
      // What the refresh did not confirm (a state that moved again before the read) stays published
      // as seen, followed by the move to the state read; its copy is no longer expected.
      const unconfirmed = [...announced.values()];
      announced.clear();
      if (unconfirmed.length > 0 && lastRead) {
        store.pushEvents(settleAnnouncements(lastRead.snapshot, unconfirmed));
        // The probe this read was paired with saw a state the read did not: it cannot vouch for
        // those sessions. The next tick refreshes, re-reading them whatever its probe says.
        for (const sid of announcedSessions(lastRead.snapshot, unconfirmed)) recheck.add(sid);
        lastSysfs = undefined;
      }
    }
    return true;
  }
  /**
   * Publishes the state changes the probe already proves (disk/session `state` moved), so they are
   * on screen now rather than after the refresh (~0.3–1.5 s at 1,000 sessions); the refresh then
   * fills in what follows from them (health, multipath paths) and drops its copy of these.
   */
  function announce(probe: SysfsProbe): boolean {
    const snap = lastRead?.snapshot;
    if (!snap) return false;
    const early = probeEvents(snap, probe.detail).filter((a) => !announced.has(eventText(a.event)));
    if (early.length === 0) return false;
    for (const a of early) announced.set(eventText(a.event), a);
    store.pushEvents(early.map((a) => a.event));
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  let lastTickAt: number | undefined;
  /**
   * Ticks keep their cadence (one every `refreshMs` from the last one's start): a tick that found a
   * change and waited for its refresh (~0.3–1.5 s at 1,000 sessions) does not push the next one
   * back by that long, which would make a change wait up to interval + refresh to be seen.
   * A quarter interval always separates the end of one tick from the start of the next.
   */
  function scheduleTick(): void {
    if (stopped || options.autoPoll === false) return;
    const now = performance.now();
    lastTickAt ??= now;
    const wait = Math.max(refreshMs / 4, lastTickAt + refreshMs - now);
    timer = setTimeout(() => {
      timer = undefined;
      lastTickAt = performance.now();
      poll()
        .catch((e: unknown) => fail(`poll failed: ${(e as Error)?.message ?? String(e)}`))
        .finally(scheduleTick);
    }, wait);
    // The console and `watch` own the process lifetime; the poll never keeps it alive.
    timer.unref();
  }

  // --- files ----------------------------------------------------------------------------------
  const specs: FileSourceSpec[] = options.files === false ? [] : fileSources(kubeletRoot, ISCSI_DB_ROOTS);
  const fileWatches = new Map<FileSourceSpec, FileWatch>();
  const readyWatches: Promise<void>[] = [];
  function reportFileSources(): void {
    for (const name of new Set(specs.map((s) => s.source))) {
      const watched = specs.filter((s) => s.source === name && fileWatches.has(s)).map((s) => s.hostPath);
      const missing = specs.filter((s) => s.source === name && !fileWatches.has(s)).map((s) => s.hostPath);
      const detail = [
        watched.length > 0 ? `watching ${watched.join(', ')}` : '',
        missing.length > 0 ? `absent (re-checked each tick): ${missing.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ');
      setSource(name, watched.length > 0, detail);
    }
  }
  function startMissingFileWatches(): void {
    let started = false;
    for (const spec of specs) {
      if (fileWatches.has(spec)) continue;
      const w = startFileWatch(
        host,
        spec,
        (p) => refresher.soon(`file ${p}`),
        (m) => fail(`file watch ${m}`),
      );
      if (!w) continue;
      fileWatches.set(spec, w);
      readyWatches.push(w.ready);
      started = true;
      // A dir that appeared since the last look may already hold what we would have seen.
      if (lastSysfs !== undefined) refresher.soon(`watching ${spec.hostPath}`);
    }
    if (started || !sources.has('kubelet-files')) reportFileSources();
  }

  // --- udev -----------------------------------------------------------------------------------
  let udev: UdevSource | undefined;
  if (options.udev ?? host.kind !== 'root') {
    udev = startUdevSource(
      host,
      (e) => refresher.soon(`uevent ${e.action} ${e.devpath}`),
      (active, detail) => setSource('udev', active, detail),
    );
  } else {
    setSource('udev', false, 'off for this host; add/remove seen by the sysfs poll');
  }

  // --- start ----------------------------------------------------------------------------------
  const pollDetail = `every ${refreshMs} ms: session and device states, block names`;
  setSource(
    'sysfs-poll',
    options.autoPoll !== false,
    options.autoPoll === false ? 'driven by caller' : pollDetail,
  );
  setSource('mountinfo', true, 'read on each poll tick (block-backed mounts, swap areas)');
  startMissingFileWatches();
  const ready = (async () => {
    await refresher.request('start');
    await Promise.all(readyWatches);
    scheduleTick();
    store.flush();
    store.pushEvents([{ kind: 'watcher', severity: 'info', subject: 'watcher', message: summary(store) }]);
    store.flush();
  })();

  // --- actions --------------------------------------------------------------------------------
  async function runAction(
    plan: Plan,
    ctx: ActionContext,
    applyOptions: ApplyOptions = {},
  ): Promise<ApplyResult> {
    const id = `${plan.action}-${++actionSeq}`;
    let tracked: TrackedAction = {
      id,
      plan,
      steps: plan.steps.map((s) => ({ stepId: s.id, status: 'pending' })),
      startedAt: host.now(),
    };
    const put = (patch: Partial<TrackedAction>) => {
      tracked = { ...tracked, ...patch };
      store.putAction(tracked);
    };
    const upsert = (p: StepProgress) => {
      const i = tracked.steps.findIndex((s) => s.stepId === p.stepId);
      return i < 0 ? [...tracked.steps, p] : tracked.steps.map((s, j) => (j === i ? p : s));
    };
    put({});
    const done = store.beginBusy();
    store.pushEvents([
      { kind: 'action', severity: 'info', subject: plan.subject, message: `${plan.title}: started` },
    ]);
    try {
      // Loaded on first use: `watch` and a read-only console never load the action engine.
      const apply = options.applyPlan ?? (await import('../engine/actions/apply.js')).applyPlan;
      const result = await apply(plan, ctx, {
        ...applyOptions,
        onProgress(p: StepProgress) {
          put({ steps: upsert(p) });
          applyOptions.onProgress?.(p);
          // What a step touched is re-read at once, not at the next tick.
          if (p.status !== 'pending' && p.status !== 'running')
            void refresher.request(`action step ${p.stepId}`);
        },
      });
      put({ finishedAt: host.now(), result, steps: result.steps.length > 0 ? result.steps : tracked.steps });
      store.pushEvents([
        result.ok
          ? { kind: 'action', severity: 'info', subject: plan.subject, message: `${plan.title}: done` }
          : {
              kind: 'action',
              severity: 'error',
              subject: plan.subject,
              message: `${plan.title} failed: ${result.error?.message ?? 'unknown error'}`,
            },
      ]);
      await refresher.request('action finished');
      return result;
    } catch (e) {
      put({ finishedAt: host.now() });
      store.pushEvents([
        {
          kind: 'action',
          severity: 'error',
          subject: plan.subject,
          message: `${plan.title} failed: ${(e as Error).message}`,
        },
      ]);
      void refresher.request('action failed');
      throw e;
    } finally {
      done();
    }
  }

  return {
    store,
    ready,
    refreshNow: (reason = 'requested') => refresher.request(reason),
    poll,
    runAction,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      refresher.cancel();
      await Promise.all([udev?.stop(), ...[...fileWatches.values()].map((w) => w.close())]);
      fileWatches.clear();
      await ready.catch(() => undefined);
      await refresher.idle();
      prober.close();
      for (const s of sources.values()) setSource(s.name, false, 'stopped');
      store.flush();
    },
  };
}

/** An event's identity for matching a probe's announcement with the snapshot diff's copy. */
function eventText(e: EventDraft): string {
  return `${e.kind}\0${e.subject}\0${e.severity}\0${e.message}`;
}

/** The first event: what the watcher sees and which sources feed it. */
function summary(store: NodeStore): string {
  const st = store.getState();
  const snap = st.snapshot;
  const s = snap?.sessions ?? [];
  const devices = s.reduce((n, x) => n + x.devices.length, 0);
  const failed = s.filter((x) => x.state !== 'LOGGED_IN').length;
  const active = st.health.sources.filter((x) => x.active).map((x) => x.name);
  return (
    `watching ${snap?.node.hostname ?? 'node'}: ${s.length} sessions (${failed} not logged in), ` +
    `${devices} SCSI devices, ${snap?.multipath.length ?? 0} multipath maps, ` +
    `${snap?.kubelet.volumes.length ?? 0} kubelet volumes; sources: ${active.join(', ') || 'none'}`
  );
}
