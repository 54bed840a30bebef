import { BugError } from '../../engine/errors.js';
import type { Command } from '../command.js';

/**
 * `help [command]`: the same text as `--help` and `<command> --help`. main.ts answers it before a
 * Host is opened (help never reads the node), so this entry only names it for the parser, the
 * command list and `help help`.
 */
export const helpCommand: Command = {
  name: 'help',
  summary: 'Show the commands, or one command’s usage and options: help [command]',
  usage: 'help [command]',
  options: [],
  examples: ['iscsi-console help', 'iscsi-console help status'],
  run() {
    return Promise.reject(new BugError('help is answered by main before a Host is opened'));
  },
};
