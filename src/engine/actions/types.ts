/**
 * Plans are data (tui-ux-and-style.md §3.6 #3): a pure planner turns an input and a snapshot into a
 * Plan; `applyPlan` executes it step by step, re-checking each step's preconditions against a fresh
 * snapshot, stops at the first failure, verifies, and journals. The console and the CLI both show
 * the same Plan before anything runs.
 */

import type { Host } from '../host/host.js';
import type { Snapshot } from '../model.js';
import type { OptionSpec } from '../options.js';

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
  | 'cleanup';

/** What a selection in the console (or a CLI argument) points at. */
export type Scope = 'session' | 'device' | 'multipath' | 'volume' | 'record' | 'node';

/** How strongly the admin must confirm: none, y/N, or typing a token (sid or hostname). */
export type ConfirmLevel = 'none' | 'yn' | 'typed';
export type Risk = 'low' | 'medium' | 'high';

/** One step of a plan. Exactly one of argv / write / fs is set. */
export interface PlanStep {
  id: string;
  /** Why this step exists (shown in the plan; cites kubelet/kernel behaviour where relevant). */
  why: string;
  /** Command to run (masked: CHAP values appear as ********; real values live in `secretRefs`). */
  argv?: string[];
  /** Indexes into the plan's private secret list to substitute when running (never shown). */
  secretArgs?: { argIndex: number; secretKey: string }[];
  /** A file/sysfs attribute write. */
  write?: { path: string; data: string };
  /** A filesystem change under the kubelet root (never recursive). */
  fs?: { op: 'mkdir' | 'rmdir' | 'unlink' | 'write-json'; path: string; data?: string };
  /** Waiting for a condition (device to appear); no side effect. */
  wait?: { what: string; path?: string; timeoutMs: number };
  /** Exit codes that count as success for this step (iscsiadm 15 on login, 21/2 on logout). */
  okExitCodes?: number[];
  /** Conditions re-checked against a fresh snapshot right before this step runs. */
  preconditions: Precondition[];
  timeoutMs?: number;
}

export interface Precondition {
  /** Machine id (e.g. 'not-mounted'). */
  id: string;
  /** Human text, e.g. "sdc is not mounted". */
  text: string;
  /** The object it is about, by fingerprint (LunKey/SessionKey/path), never by sid or sdX alone. */
  subject: string;
}

export interface Refusal {
  /** Machine id, e.g. 'mounted', 'held', 'in-use', 'outage', 'read-only'. */
  id: string;
  reason: string;
  hint?: string;
  /** Can the admin override it with explicit typed consent (--force / typed confirmation)? */
  overridable: boolean;
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
  action: ActionId;
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
}

export type StepStatus = 'pending' | 'running' | 'done' | 'skipped' | 'failed';

export interface StepProgress {
  stepId: string;
  status: StepStatus;
  /** Exit code / error / "already done (exit 21 ISCSI_ERR_NO_OBJS_FOUND)". */
  detail?: string;
  durationMs?: number;
}

export interface ApplyResult {
  ok: boolean;
  steps: StepProgress[];
  /** The first failure, with a hint. */
  error?: { message: string; hint?: string; exitName?: string };
  /** Verification against the snapshot taken after the last step. */
  verified: boolean;
  verification: string[];
  journalId?: string;
}

export interface ApplyOptions {
  /** Override overridable refusals (the admin typed explicit consent). */
  force?: boolean;
  onProgress?: (p: StepProgress) => void;
  /** Stop between steps when aborted (never mid-command). */
  signal?: AbortSignal;
  /** Secrets referenced by `secretArgs` (CHAP): never stored in the plan. */
  secrets?: Record<string, string>;
}

/** Context planners and apply need besides the snapshot. */
export interface ActionContext {
  host: Host;
  kubeletRoot: string;
  stateDir: string;
  /** The admin has enabled writes (`--write`); otherwise every plan is refused as read-only. */
  write: boolean;
  takeSnapshot: () => Snapshot;
}

/**
 * An action in the registry. The console's keys, its `?` help, the footer hints, the CLI subcommands
 * and their --help are all generated from these entries (§3.6 #4).
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
  /** Builds the input from CLI positionals/options; throws UserError on bad input. */
  inputFromCli(positionals: string[], options: Record<string, unknown>, snapshot: Snapshot): I;
  /** Builds the input from a console selection (a session key, a device key, a volume path...). */
  inputFromSelection?(selection: { scope: Scope; key: string }, snapshot: Snapshot): I;
  /** Pure: the plan for this input on this snapshot. */
  plan(input: I, snapshot: Snapshot, ctx: ActionContext): Plan;
}
