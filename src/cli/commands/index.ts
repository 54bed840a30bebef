import type { ActionId } from '../../engine/actions/types.js';
import { BugError, UserError } from '../../engine/errors.js';
import type { Command } from '../command.js';

/**
 * A subcommand as the registry knows it before it runs: its name and how to load it. The module
 * (and the engine code it pulls in: the simulator, watchers, the action registry and its zod
 * schemas) is imported only when that command runs or its help is shown. Evaluating every command
 * at start-up was ~20 % of a `status --json` start in the e2e guest (bench/README.md profile).
 */
export interface CommandEntry {
  readonly name: string;
  load(): Promise<Command>;
}

/**
 * The action subcommands (attach, logout, cleanup, ...) in the engine registry's order. Spelled out
 * here so the parser knows every command name without loading the registry; keyed by ActionId so the
 * compiler rejects a missing or unknown id, and test/cli/registry.test.ts checks the order.
 */
const ACTION_IDS: Record<ActionId, true> = {
  attach: true,
  scan: true,
  rescan: true,
  unmount: true,
  flush: true,
  'delete-device': true,
  online: true,
  logout: true,
  forget: true,
  cleanup: true,
  restore: true,
};

/** Loads one action subcommand (the whole action registry comes with it). */
async function loadAction(id: string): Promise<Command> {
  const { ACTION_COMMANDS } = await import('./actions.js');
  const c = ACTION_COMMANDS.find((x) => x.name === id);
  if (!c) throw new BugError(`action ${id} is not in the engine's action registry`);
  return c;
}

/**
 * Every subcommand, in help order. Each lives in its own file in this folder; register one with an
 * entry whose load() dynamic-imports that file. The action subcommands are generated from the
 * engine's action registry (src/cli/commands/actions.ts).
 */
export const COMMAND_ENTRIES: readonly CommandEntry[] = [
  { name: 'console', load: async () => (await import('./console.js')).consoleCommand },
  { name: 'status', load: async () => (await import('./status.js')).statusCommand },
  { name: 'watch', load: async () => (await import('./watch.js')).watchCommand },
  { name: 'doctor', load: async () => (await import('./doctor.js')).doctorCommand },
  { name: 'metrics', load: async () => (await import('./metrics.js')).metricsCommand },
  { name: 'serve', load: async () => (await import('./serve.js')).serveCommand },
  { name: 'check', load: async () => (await import('./check.js')).checkCommand },
  { name: 'bundle', load: async () => (await import('./bundle.js')).bundleCommand },
  ...Object.keys(ACTION_IDS).map((id) => ({ name: id, load: () => loadAction(id) })),
  { name: 'help', load: async () => (await import('./help.js')).helpCommand },
];

/**
 * The commands that run a plan's steps (the action subcommands): only these have a "current step"
 * for Ctrl-C to wait for (src/cli.ts); watch, serve and the rest simply end.
 */
export const STEP_COMMANDS: ReadonlySet<string> = new Set(Object.keys(ACTION_IDS));

/** Every command name (the parser needs them all to tell a command from a value). */
export const COMMAND_NAMES: ReadonlySet<string> = new Set(COMMAND_ENTRIES.map((e) => e.name));

/**
 * The command argv most likely runs, before it is parsed: the first word that names one, else the
 * console. A guess (a command name can stand as an option's value): main.ts loads this command first
 * and parses against every command when it was wrong; src/cli.ts picks the compile cache by it.
 */
export function guessCommand(argv: readonly string[]): string {
  return argv.find((a) => COMMAND_NAMES.has(a)) ?? 'console';
}

/** Loads one command by name. */
export function loadCommand(name: string): Promise<Command> {
  const entry = COMMAND_ENTRIES.find((e) => e.name === name);
  if (!entry) throw new UserError(`unknown command ${name}`, 'see iscsi-console --help');
  return entry.load();
}

/** Loads every command, in help order (top-level --help, and argv the fast path cannot place). */
export function loadAllCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_ENTRIES.map((e) => e.load()));
}
