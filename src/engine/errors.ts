import { HostIoError } from './host/host.js';
import { safeText } from './text/safe-text.js';

/**
 * The error taxonomy. Every failure the engine can foresee is one of these, and `exitCodeOf` is the
 * one mapping from an error to an exit code: `src/cli/main.ts` (the one exit point) leaves with it,
 * and a plan's failure (apply.ts) reports the same code. README.md (Commands) documents them.
 */

/** Stable, documented exit codes of every subcommand. */
export const ExitCode = {
  ok: 0,
  bug: 1,
  usage: 2,
  refused: 3,
  externalFailed: 4,
  timeout: 5,
  /** The terminal hung up (SIGHUP: the SSH session dropped, the terminal closed): 128 + 1. */
  hangup: 129,
  interrupted: 130,
} as const;
type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure a person can act on: its message and, where there is one, what to do (the hint). */
class HintedError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Something the user can fix: bad flag, bad IQN, missing file. Carries a hint. */
export class UserError extends HintedError {
  override name = 'UserError';
  readonly exitCode: ExitCodeValue = ExitCode.usage;
}

/** A safety precondition refused the action (in use, outage guard, read-only). */
export class RefusedError extends HintedError {
  override name = 'RefusedError';
  readonly exitCode: ExitCodeValue = ExitCode.refused;
  constructor(
    message: string,
    hint?: string,
    readonly reasons: readonly string[] = [],
  ) {
    super(message, hint);
  }
}

/** An external command failed. argv is already masked (no CHAP secret ever reaches here). */
export class ExternalCommandError extends Error {
  readonly exitCode: ExitCodeValue;
  constructor(
    message: string,
    readonly argv: readonly string[],
    readonly commandExitCode: number | null,
    readonly exitName: string | undefined,
    readonly stderr: string,
    readonly timedOut: boolean,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ExternalCommandError';
    this.exitCode = timedOut ? ExitCode.timeout : ExitCode.externalFailed;
  }
}

/**
 * A step failed on the node although no command of its own did (no session after a login reported
 * success, no record to hold CHAP values, no path at all): exit 4, as a failed command.
 */
export function stepFailedError(message: string, hint: string): ExternalCommandError {
  return new ExternalCommandError(message, [], null, undefined, '', false, hint);
}

/** Waited for a condition (a device to appear) and it never came. */
export class TimeoutError extends HintedError {
  override name = 'TimeoutError';
  readonly exitCode: ExitCodeValue = ExitCode.timeout;
}

/** The admin interrupted (Ctrl-C) and confirmed stopping. */
export class InterruptedError extends Error {
  readonly exitCode: ExitCodeValue = ExitCode.interrupted;
  constructor(message = 'interrupted') {
    super(message);
    this.name = 'InterruptedError';
  }
}

/**
 * A state the code should never reach: a programming error, not the node's or the admin's. Exit 1,
 * reported as an internal error with its stack (as any error outside this taxonomy is).
 */
export class BugError extends Error {
  override name = 'BugError';
  readonly exitCode: ExitCodeValue = ExitCode.bug;
}

/** Flow control: leave with this code, message already printed. */
class ExitError extends Error {
  constructor(readonly exitCode: ExitCodeValue) {
    super(`exit ${exitCode}`);
    this.name = 'ExitError';
  }
}

/**
 * Maps any thrown value to the exit code the CLI leaves with. A file operation the node refused
 * (HostIoError: EBUSY, EACCES, ENOSPC...) failed outside the console, like a command: exit 4.
 * Unknown errors are bugs.
 */
export function exitCodeOf(e: unknown): ExitCodeValue {
  if (e instanceof HostIoError) return ExitCode.externalFailed;
  if (
    e instanceof UserError ||
    e instanceof RefusedError ||
    e instanceof ExternalCommandError ||
    e instanceof TimeoutError ||
    e instanceof InterruptedError ||
    e instanceof ExitError
  ) {
    return e.exitCode;
  }
  return ExitCode.bug;
}

/** What an admin can do about a file operation the node refused, by its errno. */
function ioHint(code: string): string | undefined {
  if (code === 'EBUSY')
    return 'the kernel says it is busy: something still holds it (mount, dm holder, open file)';
  if (code === 'ENOENT') return 'it vanished meanwhile';
  if (code === 'EACCES' || code === 'EPERM') return 'run as root';
  return undefined;
}

/** The hint of an error, if it has one. */
export function hintOf(e: unknown): string | undefined {
  if (e instanceof HostIoError) return ioHint(e.code);
  return (e as { hint?: string } | undefined)?.hint;
}

/**
 * What a person reads for a failure: `iscsi-console: <message>` and `hint: <hint>` lines. Messages
 * quote node-sourced names, paths and command output, so control characters are made visible.
 */
export function errorText(message: string, hint?: string): string {
  return `iscsi-console: ${safeText(message)}\n${hint ? `hint: ${safeText(hint)}\n` : ''}`;
}
