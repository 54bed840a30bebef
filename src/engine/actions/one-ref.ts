/**
 * The input of an action that works on one object: the CLI names it in its one positional, the
 * console by the selected row's key, and both go through the same lookup (which throws a UserError
 * naming what it could not find). The usage line and the "needs" error say the same argument.
 */
import { UserError } from '../errors.js';
import type { Snapshot } from '../model.js';
import type { ActionDef } from './types.js';

/**
 * Refuses positionals past the ones an action takes (`scan 3 1 7`, `unmount /a /b`): a typo or a
 * shell split must not be silently dropped. `names` are the usage's arguments, for the message.
 */
export function noExtraPositionals(
  id: string,
  positionals: readonly string[],
  names: readonly string[],
): void {
  const extra = positionals.slice(names.length);
  if (extra.length === 0) return;
  throw new UserError(
    `${id} takes ${names.join(' ')}; extra argument${extra.length > 1 ? 's' : ''}: ${extra.map((a) => JSON.stringify(a)).join(' ')}`,
    `usage: iscsi-console ${id} ${names.join(' ')}`,
  );
}

export function oneRefInput<I>(
  id: string,
  arg: string,
  toInput: (s: Snapshot, ref: string) => I,
  hint?: string,
): Pick<ActionDef<I>, 'usage' | 'inputFromCli' | 'inputFromSelection'> {
  return {
    usage: `${id} ${arg}`,
    inputFromCli(positionals, _o, s) {
      const [ref] = positionals;
      if (ref === undefined) throw new UserError(`${id} needs ${arg}`, hint);
      noExtraPositionals(id, positionals, [arg]);
      return toInput(s, ref);
    },
    inputFromSelection: (sel, s) => toInput(s, sel.key),
  };
}
