/**
 * The poll pipeline: probe → (incremental) snapshot → diff → store.
 *
 * A poll tick takes a cheap probe of session/device states and block names (sysfs-probe.ts) and
 * of mounts (proc-probe.ts); only when what it saw moved does it ask the refresher for a read.
 * State changes the probe already proves are published at once (announcer.ts), and the read that
 * follows re-reads only the sessions that moved when it can (node-reader.ts). Every other source
 * (uevents, file events, actions) asks the same refresher, so reads never overlap and each diff
 * has one predecessor (refresher.ts).
 */
import type { Host } from '../engine/host/host.js';
import type { Snapshot } from '../engine/model.js';
import { iscsidPidAlive } from '../engine/snapshot/iscsid.js';
import { carryDownTimes } from '../engine/snapshot/outages.js';
import { createAnnouncer } from './announcer.js';
import { refreshFailed, refreshWorksAgain } from './events.js';
import { ISCSID_CHANGED, MOUNTS_CHANGED, type NodeReader, SYSFS_CHANGED } from './node-reader.js';
import type { Pacer } from './pacer.js';
import { sameProbe } from './probe-diff.js';
import { type ProcProbe, probeProc } from './proc-probe.js';
import { createRefresher, type Refresher } from './refresher.js';
import type { SourceHealthBoard } from './source-health.js';
import type { NodeStore } from './store.js';
import { type ProbeDetail, type SysfsProbe, SysfsProber } from './sysfs-probe.js';

interface PollPipelineOptions {
  host: Host;
  store: NodeStore;
  reader: NodeReader;
  health: SourceHealthBoard;
  /** Delay that coalesces bursts of uevents and file events before one refresh, ms. */
  settleMs: number;
  /** The settle timer's clock. */
  pacer: Pacer;
  /** True once the watcher is stopping. */
  stopped: () => boolean;
  /** Runs on every tick, after the sysfs probe (the file sources look for dirs that appeared). */
  onTick: () => void;
  /** Runs after each snapshot is in the store (the multipath topology follows it). */
  onSnapshot?: (snapshot: Snapshot) => void;
}

interface PollPipeline {
  /** What every source asks for a read. */
  refresher: Refresher;
  /** One poll tick; resolves true when it caused a refresh, after that refresh finished. */
  poll(): Promise<boolean>;
  /** True once the node has been read and the probe paired with that read is trusted. */
  read(): boolean;
  /** Releases the probe's open files. */
  close(): void;
}

export function createPollPipeline(o: PollPipelineOptions): PollPipeline {
  const { host, store, reader } = o;
  const prober = new SysfsProber(host);
  const announcer = createAnnouncer();
  // What the probe saw before the last refresh's read (compared list by list: sameProbe).
  let lastSysfs: ProbeDetail | undefined;
  // The poll's own probe, handed to the refresh it asks for (taken before that read, so just as
  // good as a new one, and a second probe of ~4,000 disks is what a change waits on at scale).
  let pollProbe: SysfsProbe | undefined;
  let lastProc: ProcProbe | undefined;
  // Whether iscsid's pid file named a live iscsid on the last tick: a flip re-reads the node, so
  // Snapshot.iscsid (the status bar, the problems rule) follows iscsid within a poll.
  let iscsidAlive: boolean | undefined;
  let lastRefreshError: string | undefined;
  // The sysfs pass in progress: it runs in slices (sysfs-probe.ts), so a refresh that needs a probe
  // while the poll's pass is running joins it rather than starting a second one over the same caches.
  let probing: Promise<SysfsProbe | undefined> | undefined;
  const probeSysfs = (): Promise<SysfsProbe | undefined> =>
    (probing ??= prober.probeSliced().finally(() => {
      probing = undefined;
    }));

  /**
   * The health stamps, so a status line can say both when the node was last looked at and when it
   * was last read: every probe is a poll; a read is full or incremental.
   */
  function stamp(read?: { full: boolean; ms: number }): void {
    const at = host.now();
    store.update((st) => ({
      health: {
        ...st.health,
        lastPollAt: at,
        ...(read
          ? {
              lastRefreshAt: at,
              lastRefreshMs: read.ms,
              refreshCount: st.health.refreshCount + 1,
              ...(read.full ? { lastFullReadAt: at } : {}),
            }
          : {}),
      },
    }));
  }

  async function refresh(reason: string): Promise<void> {
    if (o.stopped()) return;
    const done = store.beginBusy();
    // Let callers that asked in the same tick join this refresh, then read synchronously.
    await Promise.resolve();
    const started = performance.now();
    try {
      // Probe first: a change after this point shows in the next probe and is caught next tick.
      let probe = pollProbe;
      pollProbe = undefined;
      probe ??= await probeSysfs();
      if (!probe || o.stopped()) return;
      lastSysfs = probe.detail;
      lastProc = probeProc(host, lastProc);
      const { snapshot, full } = reader.read(reason, probe);
      // The kernel keeps no failure time: an outage or a down session keeps the first read that saw it.
      carryDownTimes(reader.last()?.snapshot ?? store.getState().snapshot, snapshot);
      reader.remember(snapshot, probe);
      const drop = announcer.drop;
      store.applySnapshot(snapshot, drop ? { drop } : {});
      o.onSnapshot?.(snapshot);
      stamp({ full, ms: Math.round((performance.now() - started) * 100) / 100 });
      if (lastRefreshError !== undefined) {
        store.pushEvents([refreshWorksAgain()]);
        lastRefreshError = undefined;
      }
    } catch (e) {
      reader.forget();
      // takeSnapshot never throws for node state; this is a bug or an unreadable root. Say it once.
      const why = (e as Error)?.message ?? String(e);
      const event = refreshFailed(why, reason);
      if (why !== lastRefreshError) o.health.fail(event);
      else store.recordError(event.message);
      lastRefreshError = why;
    } finally {
      done();
    }
  }
  const refresher = createRefresher(refresh, o.settleMs, o.pacer);

  async function poll(): Promise<boolean> {
    if (o.stopped()) return false;
    const probe = await probeSysfs();
    if (!probe || o.stopped()) return false;
    const why: string[] = [];
    if (!lastSysfs || !sameProbe(probe.detail, lastSysfs)) {
      why.push(SYSFS_CHANGED);
      if (announce(probe)) {
        // Published now, and one turn of the event loop given to subscribers (the console's
        // frame), before the refresh reads synchronously for up to a second at scale.
        store.flush();
        await new Promise((r) => setImmediate(r));
        if (o.stopped()) return false;
      }
    }
    const proc = probeProc(host, lastProc);
    o.onTick();
    if (proc.fingerprint !== lastProc?.fingerprint) why.push(MOUNTS_CHANGED);
    lastProc = proc;
    const alive = iscsidPidAlive(host);
    // Before the first tick, what the last read found stands for the last answer.
    const before = iscsidAlive ?? reader.last()?.snapshot.iscsid === 'running';
    if (alive !== before) why.push(ISCSID_CHANGED);
    iscsidAlive = alive;
    if (why.length === 0) {
      stamp();
      return false;
    }
    pollProbe = probe;
    try {
      await refresher.request(why.join(', '));
    } finally {
      // What the refresh did not confirm (a state that moved again before the read) stays published
      // as seen, followed by the move to the state read; its copy is no longer expected.
      const unconfirmed = announcer.settle(reader.last()?.snapshot);
      if (unconfirmed) {
        store.pushEvents(unconfirmed.events);
        // The probe this read was paired with saw a state the read did not: it cannot vouch for
        // those sessions. The next tick refreshes, re-reading them whatever its probe says.
        reader.recheck(unconfirmed.sids);
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
    const snap = reader.last()?.snapshot;
    if (!snap) return false;
    const early = announcer.announce(snap, probe.detail);
    if (early.length === 0) return false;
    store.pushEvents(early);
    return true;
  }

  return {
    refresher,
    poll,
    read: () => lastSysfs !== undefined,
    close: () => prober.close(),
  };
}
