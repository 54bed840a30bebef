import type { Host } from '../engine/host/host.js';
import type { ExecMode } from '../engine/host/runner.js';
import type { OptionSpec, ParsedOptions } from './args.js';

/** Options every command understands. */
export interface GlobalOptions {
  /** Host tree paths are accessed under ('/' on the node, '/host' in a debug pod). */
  root: string;
  /** Host path of the kubelet root dir. */
  kubeletRoot: string;
  /** Scenario name when running on the simulated node. */
  demo?: string;
  exec: ExecMode;
  json: boolean;
  /** The admin asked to be allowed to change the node. */
  write: boolean;
  dryRun: boolean;
  yes: boolean;
  /** Where the journal and lock files live (host path). */
  stateDir: string;
  /** Poll interval of the watchers, ms. */
  refreshMs: number;
  noColor: boolean;
  verbose: boolean;
}

export interface Output {
  stdout(text: string | Uint8Array): void;
  stderr(text: string): void;
  /** Both stdin and stdout are terminals (interactive console and prompts allowed). */
  isTTY: boolean;
  /** The terminal's width when stdout is one (plans wrap to it; src/cli/plan-text.ts). */
  columns?: number;
  /** Ask one line from the terminal (typed confirmations). Undefined without a TTY. */
  prompt?: (question: string) => Promise<string>;
}

export interface CommandContext {
  host: Host;
  globals: GlobalOptions;
  out: Output;
  /** A `--demo` scenario's note for its user (portals, lab credentials), shown by console and status. */
  demoNote?: string;
  /** Aborted on SIGINT/SIGTERM; long operations watch it and stop between steps. */
  signal: AbortSignal;
}

interface CommandArgs {
  positionals: string[];
  options: ParsedOptions;
}

/** A subcommand. `--help` and the man page are generated from these. */
export interface Command {
  name: string;
  summary: string;
  /** e.g. `status [--json]`. */
  usage: string;
  options: readonly OptionSpec[];
  examples?: readonly string[];
  /** Long help text, after the usage line. */
  description?: string;
  /** Returns the exit code (0 when omitted). Throws the engine's typed errors for failures. */
  run(ctx: CommandContext, args: CommandArgs): Promise<number | undefined>;
}
