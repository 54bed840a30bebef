/**
 * Plans are data (docs/architecture.md#plans-are-data): a pure planner turns an input and a snapshot into a
 * Plan; `applyPlan` executes it step by step, re-checking each step's preconditions against a fresh
 * snapshot, stops at the first failure, verifies, and journals. The console and the CLI both show
 * the same Plan before anything runs.
 */

import type { Host } from '../host/host.js';
import type { Snapshot } from '../model.js';
import type { OptionSpec } from '../options.js';
import type { Prober } from '../probe/prober.js';
import type { AttachRecordsPlan } from './attach-types.js';

export type ActionId =
  | 'attach'
  | 'scan'
  | 'rescan'
  | 'unmount'
  | 'flush'
  | 'delete-device'
  | 'online'
  | 'logout'
  | 'forget'
  | 'cleanup'
  | 'restore';

/**
 * Plans the registry does not offer as a key or subcommand of their own, both the attach wizard's:
 * `list-luns`, a temporary login that lists a target's LUNs (list-luns.ts), and `list-targets`, a
 * discovery with CHAP that stores nothing (list-targets.ts).
 */
export type PlanActionId = ActionId | 'list-luns' | 'list-targets';

/** What a selection in the console (or a CLI argument) points at. */
/** What a row stands for, to the actions (`csi-volume`: a CSI volume's kubelet dirs, by its staging or publish path). */
export type Scope = 'session' | 'device' | 'multipath' | 'volume' | 'csi-volume' | 'record' | 'node';

/** How strongly the admin must confirm: none, y/N, or typing a token (sid or hostname). */
export type ConfirmLevel = 'none' | 'yn' | 'typed';
export type Risk = 'low' | 'medium' | 'high';

/**
 * What a step does to the node, declared by whoever builds the step (planner, combiner, rollback,
 * tidy, wizard listing): the executor's guard (guard/) checks it against the fresh snapshot before
 * the step runs, whatever the step's argv says. Objects are named by fingerprint: a session or node
 * record `target|portal|iface`, a device its LUN key, a map its WWID, a path as written.
 */
export type StepEffect =
  /** Changes nothing on the node: a wait, a read, a name lookup, a SendTargets that stores nothing. */
  | { kind: 'none' }
  | { kind: 'login'; session: string }
  | { kind: 'logout'; session: string }
  /** A node or discovery record created, changed or deleted (iscsiadm -m node / discoverydb). */
  | { kind: 'record-new'; record: string }
  | { kind: 'record-update'; record: string }
  /** `live`: the plan knows a session uses the record and deletes it anyway (none does today). */
  | { kind: 'record-delete'; record: string; live?: boolean }
  /** SendTargets that stores a node record for every target the portal lists. */
  | { kind: 'discover'; portal: string; iface: string }
  | { kind: 'iface-new' | 'iface-update' | 'iface-delete'; iface: string }
  /** A write to a SCSI host's `scan` attribute (sysfs). */
  | { kind: 'scan'; path: string }
  /** `iscsiadm --rescan` of a session. */
  | { kind: 'rescan'; session: string }
  /** `1` to a SCSI device's `delete`: the device (a path of its map, if any) leaves the kernel. */
  | { kind: 'remove-device'; device: string; path: string }
  /** `blockdev --flushbufs`: writes back buffers, removes nothing. */
  | { kind: 'flush-buffers'; device: string }
  /** A write to a SCSI device's `state` attribute. */
  | { kind: 'device-state'; device: string; path: string }
  | { kind: 'flush-map'; map: string }
  | { kind: 'unmount'; path: string }
  | { kind: 'mount'; path: string }
  | { kind: 'detach-loop'; loop: string }
  | { kind: 'mkdir' | 'rmdir' | 'unlink'; path: string }
  /** A whole file written; `secret`: it holds CHAP values. */
  | { kind: 'write-file'; path: string; mode: number; secret?: boolean }
  /**
   * A dynamic step whose objects are found at apply time: the kinds it may have once resolved. Its
   * runner passes each resolved effect to the guard (Runtime.guard) right before the side effect,
   * and the guard refuses a resolved effect of a kind not declared here.
   */
  | { kind: 'at-apply'; effects: readonly ResolvedEffectKind[] };

export type EffectKind = StepEffect['kind'];
/** The kinds a dynamic step may resolve to (every concrete kind). */
export type ResolvedEffectKind = Exclude<EffectKind, 'at-apply'>;
export type ResolvedEffect = Exclude<StepEffect, { kind: 'at-apply' }>;
export type EffectOf<K extends EffectKind> = Extract<StepEffect, { kind: K }>;

/** A command run when its step fails (kubelet deletes what it created); it passes the guard like a step. */
export interface Compensation {
  why: string;
  argv: string[];
  effect: ResolvedEffect;
}

/** What every step has, whatever it does. */
interface StepBase {
  id: string;
  /** What it does to the node (required: a step without an effect does not compile). */
  effect: StepEffect;
  /** Why this step exists (shown in the plan; cites kubelet/kernel behaviour where relevant). */
  why: string;
  /** Exit codes that count as success for this step (iscsiadm 15 on login, 21/2 on logout). */
  okExitCodes?: number[];
  /** Conditions re-checked against a fresh snapshot right before this step runs. */
  preconditions: Precondition[];
  timeoutMs?: number;
  /**
   * When all of these already hold on the fresh snapshot, the step is skipped as "already done"
   * (a device that is already gone need not be deleted again).
   */
  doneIf?: Precondition[];
  /**
   * What must hold on the node once the step ran: a command that succeeds without it did not take
   * effect, and the step fails saying so (`iscsiadm --logout` can exit 0 while the session stays).
   */
  takesEffect?: Precondition[];
  /** A failure is only warned about (kubelet warns on node.session.scan / node.startup updates). */
  warnOnly?: boolean;
  /** Any exit code is fine (kubelet ignores the result of `discoverydb -o new`). */
  ignoreFailure?: boolean;
  /** Commands run when this step fails, before moving on (kubelet deletes the record it created). */
  onFailure?: Compensation[];
  /**
   * Steps of one portal in a multi-portal attach: a failure skips the rest of its group and the
   * plan continues with the next portal (kubelet's `lastErr` loop); it fails only when every group did.
   */
  group?: string;
  /** Work whose exact commands depend on what earlier steps found (host number, device, blkid). */
  dynamic?: DynamicStep;
}

/** The four kinds of work a step does; a step does exactly one (the others are `never`). */
interface StepWork {
  /** Command to run (masked: CHAP values appear as ********; real values live in `secretRefs`). */
  argv: string[];
  /** Indexes into the plan's private secret list to substitute when running (never shown). */
  secretArgs?: { argIndex: number; secretKey: string }[];
  /** A file/sysfs attribute write. */
  write: { path: string; data: string };
  /** A filesystem change under the kubelet root (never recursive). */
  fs: { op: 'mkdir' | 'rmdir' | 'unlink' | 'write-json'; path: string; data?: string };
  /** Waiting for a condition (device to appear); no side effect. */
  wait: { what: string; path?: string; timeoutMs: number };
}

/** A step that does the work named by K and none of the others. */
type Doing<K extends keyof StepWork, Also extends keyof StepWork = never> = StepBase &
  Pick<StepWork, K> &
  Partial<Pick<StepWork, Also>> & { [O in Exclude<keyof StepWork, K | Also>]?: never };

/**
 * One step of a plan: a command (`argv`), a sysfs write (`write`), a file change (`fs`) or a wait
 * (`wait`) — exactly one, so a step that runs nothing, or two things, does not compile.
 */
export type PlanStep = Doing<'argv', 'secretArgs'> | Doing<'write'> | Doing<'fs'> | Doing<'wait'>;

/** Steps resolved at apply time; their argv/write above shows the shape with placeholders. */
export type DynamicStep =
  /** Without `initiatorName` the clone keeps the node's (the LUN listing's own iface). */
  | { kind: 'iface-clone'; from: string; to: string; initiatorName?: string }
  /** `lun` is the target LUN; the step writes the kernel's number for it. */
  | { kind: 'scan-lun'; iqn: string; portal: string; lun: number }
  | { kind: 'wait-device'; byPath: string; transport?: string; iqn?: string; portal?: string; lun?: number }
  | { kind: 'discover'; portal: string; iface: string }
  | { kind: 'tidy-discovered'; iqn: string; iface: string; loginPortals: string[] }
  /** CHAP values (`keys`, from the apply's secrets) into the record file, never on a command line. */
  | {
      kind: 'record-secrets';
      scope: 'node' | 'discovery';
      iqn: string;
      portal: string;
      iface: string;
      keys: string[];
    }
  | { kind: 'find-multipath'; multiPortal: boolean; timeoutMs: number }
  | {
      kind: 'format-and-mount';
      target: string;
      fsType: string;
      readOnly: boolean;
      mountOptions: string[];
    }
  | { kind: 'probe-transport'; iface: string }
  /** list-targets: SendTargets through the step's argv; what it lists becomes ApplyResult.targets. */
  | { kind: 'list-targets'; portal: string }
  /** list-luns: `0 0 -` (every LUN: the kernel asks REPORT LUNS) on the SCSI host of a session it made. */
  | { kind: 'scan-target'; iqn: string; portal: string; iface: string }
  /** list-luns: wait for the scanned disks' sd nodes, then read each LUN's type, vendor, model, size. */
  | { kind: 'read-luns'; iqn: string; portal: string; iface: string; timeoutMs: number }
  /** list-luns: `1` to device/delete of every SCSI device of the session it made. */
  | { kind: 'remove-scanned'; iqn: string; portal: string; iface: string }
  | { kind: 'resolve-hostname'; name: string }
  /** restore: the reachability probe of the portals it logs in to; one that does not answer refuses the plan. */
  | { kind: 'probe-portals'; portals: string[] };

/** The dynamic step of one kind. */
export type DynamicOf<K extends DynamicStep['kind']> = Extract<DynamicStep, { kind: K }>;

export interface Precondition {
  /** Machine id (e.g. 'not-mounted'). */
  id: string;
  /** Human text, e.g. "sdc is not mounted". */
  text: string;
  /** The object it is about, by fingerprint (LunKey/SessionKey/path), never by sid or sdX alone. */
  subject: string;
  /** Expected value where the check compares one (the kernel name a fingerprint must still have). */
  value?: string;
}

export interface Refusal {
  /** Machine id, e.g. 'mounted', 'held', 'in-use', 'outage', 'read-only'. */
  id: string;
  reason: string;
  hint?: string;
  /**
   * Exact commands the hint asks for (`kubectl -n db delete pod postgres-0`), one per line under
   * it, so they can be copied as they are.
   */
  commands?: readonly string[];
  /** Can the override act lift it (consent.ts: CLI --force, console `o`, token `override <hostname>`)? */
  overridable: boolean;
  /**
   * The objects the override act lifts the guard's refusal for (fingerprints or paths, as effects
   * name them): consent maps the admin's override to exactly these, never to the whole plan.
   */
  objects?: readonly string[];
}

export interface BlastRadius {
  sessions: string[];
  devices: string[];
  maps: string[];
  mounts: string[];
  kubeletVolumes: string[];
  pods: string[];
  nodeRecords: string[];
}

export interface Plan {
  action: PlanActionId;
  title: string;
  /** Plain summary of the target (e.g. "session 7 iqn...:target1 @ 127.0.0.1:3260"). */
  subject: string;
  steps: PlanStep[];
  refusals: Refusal[];
  warnings: string[];
  blastRadius: BlastRadius;
  risk: Risk;
  confirm: ConfirmLevel;
  /** What must be typed for `typed` confirmation (the sid, or the hostname for node-wide plans). */
  confirmToken?: string;
  /** What the journal can say to undo it (commands to run by hand), if anything. */
  undo: string[];
  /** Fingerprints of the objects before apply (for the journal). */
  before: string[];
  /** Plans built from several selections carry their parts. */
  parts?: Plan[];
  /** Target IQNs locked (in-process and across processes) for the whole apply. */
  lockKeys?: string[];
  /** What must hold on the snapshot taken after the last step (verification). */
  expect?: Precondition[];
  /** attach: what a failure rolls back (or keeps), and which records discovery may create. */
  rollback?: AttachRecordsPlan;
  /**
   * The action's boolean options (`remove-driver-files`) that, given, would change this plan: said
   * by the planner that left something out for want of one, so the console offers the option as the
   * plan's toggle without planning it a second time to compare.
   */
  changedBy?: string[];
}

export type StepStatus = 'pending' | 'running' | 'done' | 'skipped' | 'failed';

export interface StepProgress {
  stepId: string;
  status: StepStatus;
  /** Exit code / error / "already done (exit 21 ISCSI_ERR_NO_OBJS_FOUND)". */
  detail?: string;
  durationMs?: number;
  /**
   * The commands the step ran, resolved (a dynamic step's device, host number and filesystem known
   * only when it runs), set once it ran: shown instead of the plan's placeholders.
   */
  ran?: string[];
}

export interface ApplyResult {
  ok: boolean;
  steps: StepProgress[];
  /** The first failure, with a hint. */
  error?: {
    message: string;
    hint?: string;
    exitName?: string;
    /** The CLI exit code this failure maps to (src/engine/errors.ts ExitCode). */
    exitCode?: number;
    /** refused (refusal or a precondition that no longer holds), external, timeout, interrupted, io. */
    kind?: 'refused' | 'external' | 'timeout' | 'interrupted' | 'io';
  };
  /** Verification against the snapshot taken after the last step. */
  verified: boolean;
  verification: string[];
  journalId?: string;
  /** Warnings raised while applying (warn-only steps that failed, hostname resolution). */
  warnings?: string[];
  /** The iSCSI device the attach ended with (`/dev/dm-N` or the by-path link). */
  devicePath?: string;
  /** list-targets: what the portal offered. */
  targets?: { portal: string; tpgt: number; iqn: string }[];
  /** list-luns: the LUNs the temporary session saw (the attach wizard's list). */
  luns?: ListedLun[];
  /** After a failed attach: what was removed again, and what was left on the node. */
  rollback?: { removed: string[]; left: string[]; kept: boolean };
}

/** One LUN a target offers, as the attach wizard lists it (list-luns.ts). */
export interface ListedLun {
  /** The target's LUN (what a PV's `lun` says). */
  lun: number;
  /** SCSI peripheral type (0 disk, 12 storage controller: tgt's LUN 0). */
  type?: number;
  vendor?: string;
  model?: string;
  rev?: string;
  sizeBytes?: number;
  wwid?: string;
  /** What on this node already uses it (a session's device, a mount, a kubelet dir), if anything. */
  inUse?: string;
  /** The filesystem udev recorded on it (`ext4`), when one was: the wizard asks before mounting it. */
  fsType?: string;
}

export interface ApplyOptions {
  /**
   * The admin's override act (consent.ts `Consent.force`): lifts the plan's overridable refusals,
   * and the guard's in-use refusals for exactly the objects those refusals name (`Refusal.objects`).
   */
  force?: boolean;
  onProgress?: (p: StepProgress) => void;
  /**
   * Stop between steps when aborted: the running step and its command run to their end (the
   * command never sees the signal), the rest are skipped, and the result is `interrupted` (130).
   */
  signal?: AbortSignal;
  /** Secrets referenced by `secretArgs` (CHAP): never stored in the plan. */
  secrets?: Record<string, string>;
  /** How long to wait for another process's lock on the same target (default 60 s). */
  lockTimeoutMs?: number;
  /** Every wait of the apply (lock retries, polls, exit-6 backoff); tests pass an instant one. */
  sleep?: (ms: number) => Promise<void>;
  /** Wall clock for the lock's deadlines and ages (default Date.now); tests advance it with `sleep`. */
  now?: () => number;
}

/** Context planners and apply need besides the snapshot. */
export interface ActionContext {
  host: Host;
  kubeletRoot: string;
  stateDir: string;
  /** The admin has enabled writes (`--write`); otherwise every plan is refused as read-only. */
  write: boolean;
  /** Plan only (`--dry-run`, the console's :dry-run): the executor runs no step that changes the node. */
  dryRun?: boolean;
  /**
   * The live reachability probe (src/engine/probe/prober.ts): there in write mode or when the admin
   * asked (`status --probe`, the console's key), absent otherwise. Planners read its last results
   * (`prober.last(portal)`, also in every snapshot `takeSnapshot` reads); callers that plan from a
   * fresh look ask `prober.probe(portals)` first. Bounded: 5 s per portal, parallel, once per interval.
   */
  prober?: Prober;
  takeSnapshot: () => Snapshot;
}

/**
 * An action in the registry. The console's keys, its `?` help, the footer hints, the CLI subcommands
 * and their --help are all generated from these entries (docs/architecture.md#actions-are-data).
 */
export interface ActionDef<I = unknown> {
  id: ActionId;
  title: string;
  /** Key in the console (single character). */
  key: string;
  scopes: readonly Scope[];
  destructive: boolean;
  summary: string;
  /** CLI: `iscsi-console <id> <usage>`. */
  usage: string;
  cliOptions: readonly OptionSpec[];
  examples: readonly string[];
  /**
   * Loads what `inputFromCli` and `secretsFromCli` read lazily (attach: the manifest reader, kept out
   * of the console's start-up); a CLI caller awaits it before either.
   */
  loadCli?(): Promise<void>;
  /** Builds the input from CLI positionals/options; throws UserError on bad input. */
  inputFromCli(positionals: string[], options: Record<string, unknown>, snapshot: Snapshot): I;
  /** Builds the input from a console selection (a session key, a device key, a volume path...). */
  inputFromSelection?(
    selection: { scope: Scope; key: string },
    snapshot: Snapshot,
    /** The action's options as the CLI would parse them (the console's plan toggles). */
    options?: Readonly<Record<string, unknown>>,
  ): I;
  /**
   * Several selections as the fewest inputs this planner takes whole (one intent each: both
   * sessions of a target → the input of `logout <iqn>`). Without it each selection is one input
   * (plan-selections.ts).
   */
  intentsFromSelections?(
    selections: readonly { scope: Scope; key: string }[],
    snapshot: Snapshot,
    options?: Readonly<Record<string, unknown>>,
  ): I[];
  /**
   * Secrets (CHAP) the CLI input refers to, read apart from the input so they never enter a plan;
   * passed to applyPlan as ApplyOptions.secrets.
   */
  secretsFromCli?(positionals: string[], options: Record<string, unknown>): Record<string, string>;
  /** Pure: the plan for this input on this snapshot. */
  plan(input: I, snapshot: Snapshot, ctx: ActionContext): Plan;
}
