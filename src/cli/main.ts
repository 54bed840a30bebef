import { openHost } from '../app/open-host.js';
import { ExitCode, errorText, exitCodeOf, hintOf, UserError } from '../engine/errors.js';
import { observeCommands } from '../engine/host/observed-host.js';
import { type OptionSpec, type ParsedArgs, parseArgs } from './args.js';
import type { Command, CommandContext, Output } from './command.js';
import { COMMAND_NAMES, guessCommand, loadAllCommands, loadCommand } from './commands/index.js';
import { GLOBAL_OPTIONS, readGlobals } from './globals.js';
import { formatCommandHelp, formatHelp } from './help.js';
import { suggestionHint } from './suggest.js';
import { verboseObserver } from './verbose.js';
import { VERSION } from './version.js';

/**
 * The process's own streams. stdin is asked second, only when stdout is a terminal: the
 * `process.stdin` getter builds the stream, which for a file, a pipe or /dev/null loads fs.ReadStream
 * and with it fs/promises, readline and the fs watchers (~7 ms of CPU on a `status --json` start that
 * never reads stdin; bench/README.md "Start-up"). `node:tty`'s isatty(0) would load net and streams.
 */
function processOutput(): Output {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    isTTY: Boolean(process.stdout.isTTY && process.stdin.isTTY),
    ...(process.stdout.isTTY && process.stdout.columns > 0 ? { columns: process.stdout.columns } : {}),
  };
}

/** The options the parser knows when `commands` are loaded: the globals, then each command's (last wins). */
export function optionSpecs(commands: readonly Command[]): OptionSpec[] {
  const all = [...GLOBAL_OPTIONS, ...commands.flatMap((c) => c.options)];
  return [...new Map(all.map((s) => [s.name, s])).values()];
}

interface Invocation {
  parsed: ParsedArgs;
  command: Command;
  /** Every command, when they had to be loaded (top-level --help). */
  all?: readonly Command[];
}

/**
 * Parses argv loading as few commands as possible. Fast path: load only the command the argv names
 * (console when none) and parse with the global options and its own. Where that cannot decide
 * (an option only another command knows, a command name standing as an option's value, top-level
 * --help) every command is loaded and argv is parsed against all of them, as it always was; the
 * fast path accepts exactly what that would (test/cli/registry.test.ts).
 */
async function resolveInvocation(argv: readonly string[]): Promise<Invocation> {
  const one = await loadCommand(guessCommand(argv));
  try {
    const parsed = parseArgs(argv, optionSpecs([one]), COMMAND_NAMES);
    const topHelp = parsed.options.help && !parsed.command;
    if ((parsed.command ?? 'console') === one.name && !topHelp) return { parsed, command: one };
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
  }
  const all = await loadAllCommands();
  const parsed = parseArgs(argv, optionSpecs(all), COMMAND_NAMES);
  const name = parsed.command ?? 'console';
  const command = all.find((c) => c.name === name) ?? (await loadCommand(name));
  return { parsed, command, all };
}

/**
 * The terminal hung up during the run (src/cli.ts aborts `signal` with the reason 'SIGHUP'): the
 * command stopped as for SIGTERM, and the exit code says why (129 = 128 + SIGHUP), whatever the
 * command returned, so a script that lost its terminal can tell.
 */
function hungUp(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason === 'SIGHUP';
}

/** `help [command]`: the top-level help, or one command's; an unknown name is exit 2 with the closest. */
async function helpFor(name: string | undefined): Promise<string> {
  if (name === undefined) return formatHelp(await loadAllCommands());
  if (!COMMAND_NAMES.has(name))
    throw new UserError(`unknown command ${name}`, suggestionHint(name, COMMAND_NAMES));
  return formatCommandHelp(await loadCommand(name));
}

/** Runs one invocation and returns its exit code; never exits the process itself. */
export async function main(
  argv: readonly string[],
  out: Output = processOutput(),
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  let close: (() => Promise<void>) | undefined;
  try {
    const { parsed, command, all } = await resolveInvocation(argv);
    if (parsed.options.version) {
      out.stdout(`${VERSION}\n`);
      return ExitCode.ok;
    }
    if (parsed.command === 'help') {
      out.stdout(await helpFor(parsed.positionals[0]));
      return ExitCode.ok;
    }
    if (parsed.options.help) {
      out.stdout(parsed.command ? formatCommandHelp(command) : formatHelp(all ?? (await loadAllCommands())));
      return ExitCode.ok;
    }
    // A word where a command belongs that names none is a typo, never a reason to open the console
    // (which takes no arguments): `iscsi-console stauts --demo` must not start a full-screen UI.
    const stray = parsed.command === undefined ? parsed.positionals[0] : undefined;
    if (stray !== undefined)
      throw new UserError(`unknown command ${stray}`, suggestionHint(stray, COMMAND_NAMES));
    const globals = readGlobals(parsed.options, process.env);
    const opened = await openHost(globals);
    close = opened.close;
    // -v: every command as it runs, on stderr (not in the console: Ink owns the terminal there).
    const host =
      globals.verbose && command.name !== 'console'
        ? observeCommands(opened.host, verboseObserver(out.stderr))
        : opened.host;
    const ctx: CommandContext = {
      host,
      globals,
      out,
      signal,
      ...(opened.note ? { demoNote: opened.note } : {}),
    };
    const code = await command.run(ctx, { positionals: parsed.positionals, options: parsed.options });
    return hungUp(signal) ? ExitCode.hangup : (code ?? ExitCode.ok);
  } catch (e) {
    const code = hungUp(signal) && exitCodeOf(e) !== ExitCode.bug ? ExitCode.hangup : exitCodeOf(e);
    if (code === ExitCode.bug) {
      out.stderr(errorText(`internal error: ${(e as Error)?.stack ?? String(e)}`));
    } else if (code !== ExitCode.ok && !(e as { silent?: boolean }).silent) {
      out.stderr(errorText((e as Error).message, hintOf(e)));
    }
    return code;
  } finally {
    await close?.();
  }
}
