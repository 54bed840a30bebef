import type { OptionSpec } from './args.js';
import type { Command } from './command.js';
import { GLOBAL_OPTIONS } from './globals.js';

function optionLine(o: OptionSpec): string {
  const flag = `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.type === 'string' ? (o.optionalValue ? ` [${o.valueName ?? 'VALUE'}]` : ` ${o.valueName ?? 'VALUE'}`) : ''}`;
  const dflt = o.default !== undefined && o.default !== false ? ` (default ${o.default})` : '';
  return `  ${flag.padEnd(30)} ${o.description}${dflt}\n`;
}

/** Top-level --help, generated from the command registry. */
export function formatHelp(commands: readonly Command[]): string {
  let t = "iscsi-console — see and safely repair a Kubernetes node's iSCSI state\n\n";
  t +=
    'Usage\n  iscsi-console [command] [options]\n  iscsi-console --demo            open the console on the simulated node\n\n';
  t += 'Commands\n';
  for (const c of commands) t += `  ${c.name.padEnd(16)} ${c.summary}\n`;
  t += '\nGlobal options\n';
  for (const o of GLOBAL_OPTIONS) t += optionLine(o);
  t +=
    '\nExit codes\n  0 ok · 1 bug · 2 usage/environment · 3 refused (precondition; a dry run: refused by anything but read-only) · 4 external command failed · 5 timed out · 129 hung up · 130 interrupted\n';
  t += "\nRun `iscsi-console help <command>` (or `<command> --help`) for a command's options.\n";
  return t;
}

/** `iscsi-console <command> --help`. */
export function formatCommandHelp(c: Command): string {
  let t = `Usage\n  iscsi-console ${c.usage}\n\n${c.summary}\n`;
  if (c.description) t += `\n${c.description}\n`;
  if (c.options.length > 0) {
    t += '\nOptions\n';
    for (const o of c.options) t += optionLine(o);
  }
  if (c.examples?.length) {
    t += '\nExamples\n';
    for (const e of c.examples) t += `  ${e}\n`;
  }
  // Every option the parser accepts for this command is listed: its own above, the global ones here.
  t += '\nGlobal options\n';
  for (const o of GLOBAL_OPTIONS) t += optionLine(o);
  return t;
}
