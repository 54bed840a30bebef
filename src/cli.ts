#!/usr/bin/env node
/**
 * Entry point. Checks the Node.js version *before* importing anything else: execa 10 and
 * chokidar 6 crash at import on Node 20 (docs/architecture.md#execa), which would hide the real cause.
 * Only this file calls process.exit.
 *
 * No top-level await here: the single executable (scripts/build-binary.mjs) bundles this file as
 * CommonJS, because Node 22's SEA only runs a CommonJS main script, and CJS has no top-level await.
 *
 * Keep this file small and its static imports to node: builtins: with the npm build it is all of
 * dist/cli.js, and the rest of the CLI (dist/chunks/) loads after the compile cache is on (but for
 * the command table, which says whether it is turned on).
 */
import { enableCompileCache } from './cli/compile-cache.js';

/** True in the single executable (defined by scripts/build-binary.mjs): V8 code cache is in the blob. */
declare const __SEA__: boolean | undefined;

const major = Number(process.versions.node.split('.')[0]);
if (!Number.isFinite(major) || major < 22) {
  process.stderr.write(
    `iscsi-console needs Node.js 22 or newer (this is ${process.version}).\n` +
      'hint: run it through npm (npx iscsi-console), which uses the pinned node@22, or use the single executable.\n',
  );
  process.exit(2);
}
// chalk ignores NO_COLOR (chalk#547); make it honour it before Ink loads.
if (process.env.NO_COLOR || process.argv.includes('--no-color')) process.env.FORCE_COLOR = '0';

/**
 * Ctrl-C / SIGTERM. Host commands run in process groups of their own (src/engine/host/runner.ts),
 * so a terminal's Ctrl-C reaches only this process. The first asks the running command to stop at
 * its next safe point: an action lets its current step (and its command) run to the end, journals
 * it, skips the rest and exits 130; watch ends. A second, while a host command still runs, names
 * that command and its pid and keeps waiting: leaving now would orphan it. A third (or a second
 * with nothing running) leaves at once, 130; a command still running then keeps running, and the
 * target's lock stays held by its pid until it ends. Listening for the whole run also keeps
 * execa's signal-exit hook from re-raising the signal while children such as `udevadm monitor`
 * are still running.
 */
const interrupt = new AbortController();
let signalsSeen = 0;
/** The host commands still running (masked argv and pid): read from the runner when asked. */
let stillRunning: () => { pid: number; argv: readonly string[] }[] = () => [];
/**
 * The command runs a plan's steps (an action subcommand): only then is there a step to finish and
 * say so. watch, serve, status and the rest end quietly on the first Ctrl-C (set once argv is read).
 */
let runsSteps = true;
function named(list: { pid: number; argv: readonly string[] }[]): string {
  return list.map((c) => `${c.argv.join(' ')} (pid ${c.pid})`).join(', ');
}
function onSignal(): void {
  signalsSeen += 1;
  const running = stillRunning();
  if (signalsSeen === 1) {
    interrupt.abort();
    if (runsSteps)
      process.stderr.write(
        'iscsi-console: interrupted: stopping after the current step (a running command is never cut off)\n',
      );
  } else if (signalsSeen === 2 && running.length > 0) {
    process.stderr.write(
      `iscsi-console: still running: ${named(running)}; waiting for it to end so nothing is left half-done ` +
        '(a third Ctrl-C quits anyway: the command keeps running and its target stays locked until it ends)\n',
    );
  } else {
    if (running.length > 0)
      process.stderr.write(
        `iscsi-console: quitting now; left running: ${named(running)}: its target stays locked until it ends\n`,
      );
    process.exit(130);
  }
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/**
 * SIGHUP (the SSH session dropped, the terminal closed) is the first stage of SIGTERM: stop after the
 * current step, journal, restore the terminal, release the locks, remove a `--demo` tree; main exits
 * 129. Nobody is left to press a key twice, so a repeated hang-up never escalates to leaving mid-step.
 * Writes to the gone terminal fail (EIO, EPIPE): they are dropped, never an uncaught error.
 */
function onHangup(): void {
  for (const s of [process.stdout, process.stderr, process.stdin]) s.on('error', () => {});
  if (signalsSeen > 0) return;
  signalsSeen = 1;
  interrupt.abort('SIGHUP');
  // Read where stderr outlives the terminal (redirected to a file, nohup, a pipe).
  process.stderr.write(
    runsSteps
      ? 'iscsi-console: hung up (SIGHUP): stopping after the current step (a running command is never cut off)\n'
      : 'iscsi-console: hung up (SIGHUP)\n',
  );
}
process.on('SIGHUP', onHangup);

/**
 * The reader of stdout went away (`watch --json | head -1`): the next write fails with EPIPE. The
 * output has nowhere to go, so the command stops as for a hang-up (an action after its current
 * step) instead of dying on an unhandled 'error' event; later writes fail the same way, unheard.
 */
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  if (!interrupt.signal.aborted) interrupt.abort('EPIPE');
});

async function start(): Promise<void> {
  // No compile cache for the console UI (compile-cache.ts): the default command on a terminal.
  // The command table is the one module loaded before that decision, and it is small.
  const { guessCommand, STEP_COMMANDS } = await import('./cli/commands/index.js');
  const guessed = guessCommand(process.argv.slice(2));
  // The console runs plans too (its own Ctrl-C is a key; a SIGTERM still stops between steps).
  runsSteps = STEP_COMMANDS.has(guessed) || guessed === 'console';
  const consoleUi = guessed === 'console' && Boolean(process.stdout.isTTY);
  if (typeof __SEA__ === 'undefined' || !__SEA__) enableCompileCache(process.env, consoleUi);
  const [{ main }, runner] = await Promise.all([import('./cli/main.js'), import('./engine/host/runner.js')]);
  stillRunning = runner.runningCommands;
  const code = await main(process.argv.slice(2), undefined, interrupt.signal);
  process.exitCode = code;
  // Let pending writes (stdout pipes) flush; exit explicitly so stray handles cannot keep us alive.
  process.stdout.write('', () => process.exit(code));
}

start().catch((e: unknown) => {
  // main() maps every error to a code; reaching here means the import itself failed (a broken build).
  process.stderr.write(`iscsi-console: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
