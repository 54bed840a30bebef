import { UserError } from '../../engine/errors.js';
import type { Command } from '../command.js';
import { holdYoungGeneration } from '../young-generation.js';

/**
 * `console` (the default command): the full-screen interface. It needs a terminal on both ends;
 * without one it refuses before anything is rendered (Ink would throw "Raw mode is not supported"),
 * pointing at the subcommands that do the same job non-interactively.
 */
export const consoleCommand: Command = {
  name: 'console',
  summary: 'Full-screen console: sessions, devices, kubelet volumes, actions with plans (default command)',
  usage: 'console [--write] [--dry-run] [--demo [SCENARIO]] [--no-color]',
  options: [],
  examples: ['iscsi-console', 'iscsi-console --write', 'iscsi-console --demo incident --write'],
  description:
    'Starts read-only; --write (or :write inside, confirmed by typing the hostname) allows changes. ' +
    'Every action shows its plan (exact commands, blast radius, refusals) and asks for a confirmation ' +
    'whose strength grows with the risk. Keys: ? inside. NO_COLOR or --no-color drops colours.',
  async run(ctx) {
    const { globals, out, host } = ctx;
    if (!out.isTTY || globals.json) {
      throw new UserError(
        globals.json
          ? 'the console is interactive and has no --json form'
          : 'the console needs a terminal (stdin and stdout must be a TTY)',
        'use the subcommands instead: iscsi-console status [--json], watch, doctor, or an action such as ' +
          'iscsi-console cleanup --dry-run (see iscsi-console --help)',
      );
    }
    // Ink lays out with Yoga, which is WebAssembly. Node started with --jitless (the DaemonSet's
    // metrics container sets it for serve, and a shell exec'd there inherits it) has none, and the
    // console would die inside Yoga's loader with an internal error.
    if (!('WebAssembly' in globalThis)) {
      throw new UserError(
        'the console needs WebAssembly, and this Node runs without it (NODE_OPTIONS has --jitless?)',
        'start it with NODE_OPTIONS= iscsi-console (the DaemonSet sets --jitless for serve only); ' +
          'the subcommands work as they are: iscsi-console status, doctor, watch',
      );
    }
    // Loaded only here: the subcommands never pay for Ink and React.
    const { createConsoleBackend } = await import('../../app/console-backend.js');
    const { runConsole } = await import('../../ui/run-console.js');
    const backend = createConsoleBackend({
      host,
      kubeletRoot: globals.kubeletRoot,
      stateDir: globals.stateDir,
      refreshMs: globals.refreshMs,
      exec: globals.exec,
      // The first frame shows at most a screenful of sessions (Ink writes to process.stdout).
      firstLookLimit: Math.max(24, process.stdout.rows ?? 0),
      ...(ctx.demoNote ? { demoNote: ctx.demoNote } : {}),
    });
    try {
      await runConsole({
        backend,
        hostname: host.hostname(),
        write: globals.write,
        dryRun: globals.dryRun,
        noColor: globals.noColor,
        signal: ctx.signal,
        // The first frame shows the backend's first look; the full read starts behind it, with the
        // young generation held at its size (young-generation.ts: the console's peak memory).
        onFirstFrame: () => {
          holdYoungGeneration();
          backend.start();
        },
      });
    } finally {
      await backend.stop();
    }
    return 0;
  },
};
