/**
 * The console's composition root: the node store with a first look in it, the watcher once the
 * console is on screen, ActionContexts, plans from the engine's registry, runs through applyPlan
 * (tracked by the watcher in the store's `actions`), the journal, discovery, manifests, and the doctor.
 * The UI gets only the `ConsoleBackend` interface (backend.ts); the Host comes from open-host.ts.
 */
import { manifestModule, planAttach } from '../engine/actions/attach.js';
import { actionContext } from '../engine/actions/context.js';
import { listPortalTargets } from '../engine/actions/discover.js';
import { lunListing } from '../engine/actions/list-luns.js';
import { planListTargets } from '../engine/actions/list-targets.js';
import { planSelections } from '../engine/actions/plan-selections.js';
import { ACTIONS, findAction } from '../engine/actions/registry.js';
import type { ActionContext, ActionId, Plan } from '../engine/actions/types.js';
import { runDoctor } from '../engine/doctor/index.js';
import type { DoctorReport } from '../engine/doctor/types.js';
import { UserError } from '../engine/errors.js';
import type { Host } from '../engine/host/host.js';
import type { ExecMode } from '../engine/host/runner.js';
import { lazyModule } from '../engine/lazy-module.js';
import type { Snapshot } from '../engine/model.js';
import { probeLine } from '../engine/probe/probe-line.js';
import { downPortals } from '../engine/probe/probed-snapshot.js';
import { createProber, type Prober } from '../engine/probe/prober.js';
import { takeSnapshot } from '../engine/snapshot/index.js';
import { firstLook } from '../watchers/first-look.js';
import { createNodeStore } from '../watchers/store.js';
import { startWatcher, type Watcher } from '../watchers/watcher.js';
import type { ConsoleBackend, Selection } from './backend.js';
import { journalReader } from './journal-entries.js';

export interface ConsoleBackendOptions {
  host: Host;
  kubeletRoot: string;
  stateDir: string;
  refreshMs: number;
  exec: ExecMode;
  /** Sessions the first look reads (the rows a screen shows; default: all). See first-look.ts. */
  firstLookLimit?: number;
  /** A `--demo` scenario's note for its user (ConsoleBackend.demoNote). */
  demoNote?: string;
}

export interface LiveBackend extends ConsoleBackend {
  /** The watcher once started (`start()`, or anything that needs the node read). */
  readonly watcher: Watcher | undefined;
  /**
   * Starts the watcher: the full read, then the poll and the file watches. The console calls it
   * once its first frame (from the first look) is on the terminal; idempotent.
   */
  start(): Watcher;
  /**
   * Resolves once the readers the console loads after its first frame (journal, manifests) are in;
   * `start()` begins loading them. Until then the journal reads as empty and a manifest load says so.
   */
  readersLoaded(): Promise<void>;
  /** Stops the watcher, if it was started. */
  stop(): Promise<void>;
  runDoctor(): Promise<DoctorReport>;
}

/** What an action key says while only the first look is in (actions need the full read). */
export const STILL_READING =
  'still reading the node: actions are planned on the full read, not the first look';

/**
 * Builds the backend and takes the first look (first-look.ts: sessions and states, tens of ms) into
 * the store, so the console's first frame shows the node; the full read waits for `start()`. Before
 * (bench/README.md) the console used to wait for the full snapshot (~2.5 s at 1,000 sessions × 4 LUNs) and for
 * the file watches before it showed anything.
 */
/** The journal reader (zod): loaded after the first frame, with the manifest reader (attach.ts). */
const journalModule = lazyModule('the journal reader', () => import('../engine/actions/journal-read.js'));

/** Loads both readers; a failed load (a broken install) shows where they are used, never as a crash here. */
function loadReaders(): Promise<void> {
  return Promise.all([journalModule.load(), manifestModule.load()]).then(
    () => undefined,
    () => undefined,
  );
}

export function createConsoleBackend(o: ConsoleBackendOptions): LiveBackend {
  const store = createNodeStore({ now: () => o.host.now() });
  try {
    const look = firstLook(o.host, {
      kubeletRoot: o.kubeletRoot,
      ...(o.firstLookLimit ? { limit: o.firstLookLimit } : {}),
    });
    store.update(() => ({ snapshot: look }));
  } catch {
    // An unreadable root: the full read reports why; the console shows "Reading the node…" until then.
  }
  store.flush();
  let watcher: Watcher | undefined;
  // Made when the admin first asks for a probe (never before: a look sends nothing to the network);
  // then shared by the watcher's reads and every action's fresh snapshots.
  let prober: Prober | undefined;
  let readers: Promise<void> | undefined;
  const start = (): Watcher => {
    readers ??= loadReaders();
    watcher ??= startWatcher({
      host: o.host,
      kubeletRoot: o.kubeletRoot,
      refreshMs: o.refreshMs,
      store,
      probes: () => prober?.results() ?? [],
    });
    return watcher;
  };
  const ctxFor = (write: boolean, dryRun = false): ActionContext =>
    actionContext({
      host: o.host,
      kubeletRoot: o.kubeletRoot,
      stateDir: o.stateDir,
      write,
      dryRun,
      ...(prober ? { prober } : {}),
    });
  // Plans are built from the full read only: a first look has no verdicts, devices or kubelet
  // state, so planning on it could miss exactly what makes an action unsafe.
  const current = (): Snapshot => {
    const snap = store.getState().snapshot;
    if (snap?.partial)
      throw new UserError(STILL_READING, 'press the key again once the status bar shows "read … ago"');
    return snap ?? takeSnapshot(o.host, { kubeletRoot: o.kubeletRoot });
  };
  // The journal's tail (bounded: a million-entry journal reads like its newest entries), per node state.
  // Before its reader is loaded it throws, and the journal feed shows as empty (journal-feed.ts).
  const journal = journalReader(store, () => journalModule.get().readJournalTail(o.host, o.stateDir));
  return {
    ...(o.demoNote ? { demoNote: o.demoNote } : {}),
    get watcher() {
      return watcher;
    },
    start,
    readersLoaded: () => (readers ??= loadReaders()),
    async stop() {
      await watcher?.stop();
    },
    store,
    actions: ACTIONS,
    refreshNow: () => void start().refreshNow('console'),
    async probePortals() {
      if (o.host.kind === 'root' && o.exec === 'direct')
        throw new UserError(
          `no probe: ${o.host.root} is a --root tree read with local tools, not a live node`,
          'run the console on the node, or in a debug pod with --exec nsenter',
        );
      const portals = downPortals(current());
      if (portals.length === 0) return 'no down session: no portal to probe';
      prober ??= createProber({ host: o.host, now: () => o.host.now() });
      const results = await prober.probe(portals);
      start().refreshNow('probe');
      return results
        .map((r) => `${r.portal} ${r.answers ? 'answers' : 'does not answer'}: ${probeLine(r)}`)
        .join('; ');
    },
    plan(action: ActionId, selections: Selection[], write: boolean, options = {}): Plan {
      // One intent, one plan: the engine decides which marked rows one planner takes together.
      return planSelections(findAction(action), selections, current(), ctxFor(write), options);
    },
    planAttach(input, write) {
      return planAttach(input, current(), ctxFor(write));
    },
    async apply(plan, options) {
      const { write, dryRun, ...rest } = options;
      // The watcher tracks the run in the store's `actions` (the dialog reads its progress there),
      // journals through applyPlan and re-reads the node when it ends.
      const result = await start().runAction(plan, ctxFor(write, dryRun === true), rest);
      // Published now, not at the store's next tick: the outcome is drawn over the re-read node.
      store.flush();
      return result;
    },
    readJournal: () => journal().entries,
    journalNotes: () => journal().notes,
    discover: (portal) => listPortalTargets(o.host, portal),
    listLuns: (input, write) => lunListing(input, current(), ctxFor(write)),
    planListTargets: (input, write) => planListTargets(input, current(), ctxFor(write)),
    loadManifest(path, secretPath) {
      // The admin's own files (where the console runs), not the node's: read bounded, not through the Host.
      const { attachFromManifest, chapFromSecret, readManifestFile } = manifestModule.get();
      const m = attachFromManifest(readManifestFile(path), path);
      const secrets = secretPath
        ? chapFromSecret(readManifestFile(secretPath), secretPath, m.secretName)
        : {};
      return { input: m.input, secrets };
    },
    refreshMs: o.refreshMs,
    now: () => o.host.now(),
    runDoctor: () => runDoctor(o.host, { kubeletRoot: o.kubeletRoot, exec: o.exec }),
  };
}
