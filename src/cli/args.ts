import { UserError } from '../engine/errors.js';
import type { OptionSpec } from '../engine/options.js';
import { suggestionHint } from './suggest.js';

export type { OptionSpec };

export type ParsedOptions = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  command: string | undefined;
  positionals: string[];
  options: ParsedOptions;
}

/**
 * A small argv parser: `--flag`, `--opt value`, `--opt=value`, `-x`, `--no-color`, and options whose
 * value may be omitted (`--demo` / `--demo incident`). The first positional that names a command
 * selects it; options may stand before or after it.
 */
export function parseArgs(
  argv: readonly string[],
  specs: readonly OptionSpec[],
  commands: ReadonlySet<string>,
): ParsedArgs {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const options: ParsedOptions = {};
  const positionals: string[] = [];
  let command: string | undefined;
  const set = (spec: OptionSpec, value: string | boolean) => {
    if (spec.multiple) {
      const prev = options[spec.name];
      options[spec.name] = [...(Array.isArray(prev) ? prev : []), String(value)];
    } else {
      options[spec.name] = value;
    }
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const spec = byName.get(name);
      if (!spec) throw new UserError(`unknown option --${name}`, suggestionHint(name, byName.keys(), '--'));
      if (spec.type === 'boolean') {
        if (eq !== -1) throw new UserError(`--${name} takes no value`);
        set(spec, true);
        continue;
      }
      if (eq !== -1) {
        set(spec, arg.slice(eq + 1));
        continue;
      }
      const next = argv[i + 1];
      const nextIsValue =
        next !== undefined && !next.startsWith('-') && !(spec.optionalValue && commands.has(next));
      if (nextIsValue) {
        set(spec, next);
        i++;
      } else if (spec.optionalValue) {
        set(spec, true);
      } else {
        throw new UserError(`--${name} needs a value${spec.valueName ? ` (${spec.valueName})` : ''}`);
      }
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      for (const ch of arg.slice(1)) {
        const spec = byShort.get(ch);
        if (spec?.type !== 'boolean')
          throw new UserError(`unknown option -${ch}`, 'see iscsi-console --help');
        set(spec, true);
      }
      continue;
    }
    if (command === undefined && positionals.length === 0 && commands.has(arg)) command = arg;
    else positionals.push(arg);
  }
  return { command, positionals, options };
}
