import type { Host } from '../host/host.js';
import type { ExecMode } from '../host/runner.js';
import type { Snapshot } from '../model.js';
import type { ProcessTable } from './processes.js';

/** How one doctor check came out. `skip`: it could not be judged here (no permission, not applicable). */
export type DoctorStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** One check's verdict: data, so the CLI, `--json` and the Doctor view all show the same thing. */
export interface DoctorCheck {
  /** Stable id for scripts (`iscsid.running`, `module.iscsi_tcp`, ...). */
  id: string;
  /** What was checked, as a short sentence fragment ("iscsid running"). */
  title: string;
  status: DoctorStatus;
  /** What was seen, with the host paths or commands it came from. Never contains CHAP secrets. */
  evidence: string;
  /** What to do about a warn/fail (a command when there is one); absent when there is nothing to do. */
  hint?: string;
  /**
   * Where the rule comes from: an upstream file or URL, or a page in docs/ (host configuration
   * checks). A warn or fail is the rule's severity; the source lets an admin weigh it.
   */
  source?: string;
}

export interface DoctorSummary {
  pass: number;
  warn: number;
  fail: number;
  skip: number;
  /** No check failed (exit code 0). */
  ok: boolean;
}

/** The `--json` document of `iscsi-console doctor` (versioned like every JSON output). */
export interface DoctorReport {
  schemaVersion: 1;
  checks: DoctorCheck[];
  summary: DoctorSummary;
}

export interface DoctorOptions {
  /** Host path of the kubelet root dir (`--kubelet-root`). */
  kubeletRoot: string;
  /** How host commands run (`--exec`): decides whether a foreign network namespace matters. */
  exec: ExecMode;
  /** Timeout of each version command, ms. */
  timeoutMs?: number;
}

/** What every check gets: the host and the options. Checks only read (files, `--version` commands). */
export interface DoctorContext extends Required<Pick<DoctorOptions, 'kubeletRoot' | 'exec' | 'timeoutMs'>> {
  host: Host;
  /** `/proc/<pid>/comm`, scanned once per run. */
  processes: ProcessTable;
  /** The node's snapshot, read on first use and shared by the checks that need sessions, maps or drivers. */
  snapshot(): Snapshot;
}

/** One check: reads through ctx.host only and never throws for what it finds on the node. */
export type DoctorCheckFn = (ctx: DoctorContext) => DoctorCheck | Promise<DoctorCheck>;
