import { UserError } from '../../engine/errors.js';
import type { Command } from '../command.js';
import { ACTION_COMMANDS } from './actions.js';
import { consoleCommand } from './console.js';
import { doctorCommand } from './doctor.js';
import { statusCommand } from './status.js';
import { watchCommand } from './watch.js';

/**
 * Every subcommand, in help order. Each lives in its own file in this folder; the action
 * subcommands (attach, logout, cleanup, ...) are generated from the engine's action registry.
 */
export const COMMANDS: readonly Command[] = [
  consoleCommand,
  statusCommand,
  watchCommand,
  doctorCommand,
  ...ACTION_COMMANDS,
];

export function findCommand(name: string): Command {
  const c = COMMANDS.find((x) => x.name === name);
  if (!c) throw new UserError(`unknown command ${name}`, 'see iscsi-console --help');
  return c;
}
