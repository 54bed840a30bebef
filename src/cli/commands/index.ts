import { UserError } from '../../engine/errors.js';
import type { Command } from '../command.js';

/**
 * Every subcommand, in help order. Each lives in its own file in this folder; the action
 * subcommands (attach, logout, cleanup, ...) are generated from the engine's action registry.
 */
export const COMMANDS: readonly Command[] = [];

export function findCommand(name: string): Command {
  const c = COMMANDS.find((x) => x.name === name);
  if (!c) throw new UserError(`unknown command ${name}`, 'see iscsi-console --help');
  return c;
}
