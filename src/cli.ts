#!/usr/bin/env node
/**
 * Entry point. Checks the Node.js version *before* importing anything else: execa 10 and
 * chokidar 6 crash at import on Node 20 (tui-ux-and-style.md §5), which would hide the real cause.
 * Only this file calls process.exit.
 *
 * No top-level await here: the single executable (scripts/build-binary.mjs) bundles this file as
 * CommonJS, because Node 22's SEA only runs a CommonJS main script, and CJS has no top-level await.
 *
 * Keep this file small and its static imports to node: builtins: with the npm build it is all of
 * dist/cli.js, and the rest of the CLI (dist/chunks/) loads after the compile cache is on.
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
if (typeof __SEA__ === 'undefined' || !__SEA__) enableCompileCache();
// chalk ignores NO_COLOR (chalk#547); make it honour it before Ink loads.
if (process.env.NO_COLOR || process.argv.includes('--no-color')) process.env.FORCE_COLOR = '0';

/**
 * Ctrl-C / SIGTERM: the first asks the running command to stop at its next safe point (an action
 * stops between steps, never half-way through one; watch ends); a second leaves at once. Listening
 * for the whole run also keeps execa's signal-exit hook from re-raising the signal while children
 * such as `udevadm monitor` are still running.
 */
const interrupt = new AbortController();
let signalsSeen = 0;
function onSignal(): void {
  signalsSeen += 1;
  if (signalsSeen === 1) {
    interrupt.abort();
    process.stderr.write(
      'iscsi-console: interrupted: stopping at the next safe point (press Ctrl-C again to quit now)\n',
    );
  } else {
    process.exit(130);
  }
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

async function start(): Promise<void> {
  const { main } = await import('./cli/main.js');
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
