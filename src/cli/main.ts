import { ExitCode, exitCodeOf, hintOf } from '../engine/errors.js';
import { parseArgs } from './args.js';
import type { CommandContext, Output } from './command.js';
import { COMMANDS, findCommand } from './commands/index.js';
import { GLOBAL_OPTIONS, readGlobals } from './globals.js';
import { formatCommandHelp, formatHelp } from './help.js';
import { openHost } from './open-host.js';
import { VERSION } from './version.js';

function processOutput(): Output {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    isTTY: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  };
}

/** Runs one invocation and returns its exit code; never exits the process itself. */
export async function main(
  argv: readonly string[],
  out: Output = processOutput(),
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  const names = new Set(COMMANDS.map((c) => c.name));
  let close: (() => Promise<void>) | undefined;
  try {
    const allSpecs = [...GLOBAL_OPTIONS, ...COMMANDS.flatMap((c) => c.options)];
    const uniqueSpecs = [...new Map(allSpecs.map((s) => [s.name, s])).values()];
    const parsed = parseArgs(argv, uniqueSpecs, names);
    if (parsed.options.version) {
      out.stdout(`${VERSION}\n`);
      return ExitCode.ok;
    }
    const command = findCommand(parsed.command ?? 'console');
    if (parsed.options.help) {
      out.stdout(parsed.command ? formatCommandHelp(command) : formatHelp(COMMANDS));
      return ExitCode.ok;
    }
    const globals = readGlobals(parsed.options, process.env);
    const opened = await openHost(globals);
    close = opened.close;
    const ctx: CommandContext = { host: opened.host, globals, out, signal };
    const code = await command.run(ctx, { positionals: parsed.positionals, options: parsed.options });
    return code ?? ExitCode.ok;
  } catch (e) {
    const code = exitCodeOf(e);
    if (code === ExitCode.bug) {
      out.stderr(`iscsi-console: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    } else if (code !== ExitCode.ok && !(e as { silent?: boolean }).silent) {
      out.stderr(`iscsi-console: ${(e as Error).message}\n`);
      const hint = hintOf(e);
      if (hint) out.stderr(`hint: ${hint}\n`);
    }
    return code;
  } finally {
    await close?.();
  }
}
