import { UserError } from '../../engine/errors.js';
import type { Command } from '../command.js';
import { doctorCommand } from './doctor.js';
import { statusCommand } from './status.js';
import { watchCommand } from './watch.js';

/**
 * Every subcommand, in help order. Each lives in its own file in this folder; the action
 * subcommands (attach, logout, cleanup, ...) are generated from the engine's action registry.
 */
export const COMMANDS: readonly Command[] = [statusCommand, watchCommand, doctorCommand];

export function findCommand(name: string): Command {
  const c = COMMANDS.find((x) => x.name === name);
  if (!c) throw new UserError(`unknown command ${name}`, 'see iscsi-console --help');
  return c;
}
