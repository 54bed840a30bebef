/**
 * The app layer's interface to the console: everything the UI may ask of the node, as one object.
 * The real one is built by `createConsoleBackend` (console-backend.ts: the watcher's store, the
 * engine's action registry, plans run through applyPlan); component tests build one over a store
 * they fill by hand. The UI never touches the Host, the engine's internals or the watchers: what
 * reads or changes the node goes through here, and the engine's pure facts through domain.ts.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { AttachInput } from '../engine/actions/attach-types.js';
import type { JournalEntry as EngineJournalLine } from '../engine/actions/journal.js';
import type { ListLunsInput, LunListing } from '../engine/actions/list-luns.js';
import type { ListTargetsInput } from '../engine/actions/list-targets.js';
import type { ActionDef, ActionId, ApplyOptions, ApplyResult, Plan, Scope } from '../engine/actions/types.js';
import type { DoctorReport } from '../engine/doctor/types.js';
import type { DiscoveredTarget } from '../engine/iscsiadm/discovery.js';
import type { NodeEvent, NodeState } from '../watchers/types.js';

/** The node store's shape, as the UI reads it (the watchers write it). */
/** One line of the engine's journal file (`journal.jsonl`). */
export type { EngineJournalLine, NodeEvent };

/** One selected (or marked) row an action applies to. */
export interface Selection {
  scope: Scope;
  /** Fingerprint (SessionKey, LunKey, map name, volume path, record path). */
  key: string;
  /** Short text for the plan header ("session 7"). */
  label: string;
}

/** One journal entry as the console shows it (every action: exact commands, exit codes). */
export interface JournalEntry {
  id: string;
  at: number;
  action: string;
  subject: string;
  ok: boolean;
  commands: { argv: string[]; exitCode: number | null; detail?: string }[];
  error?: string;
  /**
   * The journal file's lines for this action as the engine wrote them (begin, then end; already
   * masked): the plan, each step's commands and outcome, who ran it. The entry dialog and `y` read these.
   */
  lines?: readonly EngineJournalLine[];
}

/** A target a discovery offered (attach wizard): the engine's SendTargets parser's type. */
export type { DiscoveredTarget };

/** A Pod/PV manifest (+ Secret) as the engine reads it: the attach input and the CHAP values apart. */
interface ManifestValues {
  input: AttachInput;
  /** Node-DB names → values (never rendered, never in a plan). */
  secrets: Record<string, string>;
}

export interface ConsoleBackend {
  store: StoreApi<NodeState>;
  /** A `--demo` scenario's word to its user (what it serves: portals, lab credentials), shown on screen. */
  demoNote?: string;
  /** Actions from the engine registry (keys, help and footer hints are generated from these). */
  actions: readonly ActionDef[];
  /** Ask the watchers for an immediate re-read. */
  refreshNow(): void;
  /**
   * The live reachability probe of the down sessions' portals (src/engine/probe/), asked by the
   * admin: from then on every read carries its results, so a portal that answers turns its down
   * sessions from outage into stuck. Resolves with one line for the status bar; rejects (with the
   * reason) where a probe must not be sent: a --root tree read with local tools.
   */
  probePortals(): Promise<string>;
  /** One plan for the selections (several marked rows → a combined plan with `parts`). */
  /** `options`: the action's boolean options the plan dialog toggles (OptionSpec.toggle). */
  plan(
    action: ActionId,
    selections: Selection[],
    write: boolean,
    options?: Readonly<Record<string, boolean>>,
  ): Plan;
  /** Plan an attach from the wizard's fields. */
  planAttach(input: AttachInput, write: boolean): Plan;
  /**
   * Runs a plan: tracked in the store's `actions` while it runs (under this very Plan object: the
   * one progress stream the console reads), journaled by the engine, the node re-read when it ends.
   * Resolves with the outcome (never throws for command failures).
   */
  /** `dryRun`: the console's dry-run; the executor then refuses every step that changes the node. */
  apply(plan: Plan, options: ApplyOptions & { write: boolean; dryRun?: boolean }): Promise<ApplyResult>;
  /** Newest last (the journal's newest entries: its tail). */
  readJournal(): JournalEntry[];
  /**
   * What the journal view says besides its entries: each malformed line (its number and why), and
   * how many older entries were not read ([] when none).
   */
  journalNotes(): string[];
  /** Targets a portal offers (the engine's listPortalTargets: stores no record), for the attach wizard. */
  discover(portal: string): Promise<DiscoveredTarget[]>;
  /**
   * The LUNs a target offers (the engine's list-luns): read from the node's sessions to it, or the
   * plan of a temporary login that lists them and undoes itself (applied through `apply`).
   */
  listLuns(input: ListLunsInput, write: boolean): LunListing;
  /** Discovery with CHAP (the engine's list-targets): a plan that stores nothing, applied through `apply`. */
  planListTargets(input: ListTargetsInput, write: boolean): Plan;
  /** Reads a Pod/PV manifest (+ Secret) with the engine's one manifest reader. */
  loadManifest(path: string, secretPath?: string): ManifestValues;
  /** The watchers' poll interval (shown in the status bar). */
  refreshMs: number;
  /** The node's clock (ms since the epoch): refresh ages are measured against it. */
  now(): number;
  /** Runs the doctor engine's checks (the Doctor view), as `iscsi-console doctor` does. */
  runDoctor(): Promise<DoctorReport>;
}
