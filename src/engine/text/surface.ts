/**
 * One hint, two surfaces. Planners, the consent policy and the problems rule word a remedy the way
 * the CLI takes it (`--force`, `--remove-driver-files`, `iscsi-console scan 3 1 --write`): that is
 * the text `--dry-run`, `--json` and the journal keep. Inside the console the same fact reads as the
 * console's keys: the override act is `o` in the plan, writes are `:write`, an action is its key on
 * the row, cleanup's `--remove-driver-files` is tab in its plan. `hintFor(text, 'console', actions)` gives that rendering; 'cli' returns the text as is.
 * The action keys come in as a parameter (the registry's), so a key that moves moves here too.
 */

type Surface = 'cli' | 'console';

/** An action as the console binds it (the registry's id, key and title). */
export interface SurfaceAction {
  id: string;
  key?: string;
  title: string;
}

/** The CLI's wording of the console's own acts, longest first (the first match wins). */
const CONSOLE_WORDS: readonly [RegExp, string][] = [
  // The consent policy's and the guard's texts already name both surfaces.
  [/add --write \(in the console: type :write\)/g, 'type :write'],
  [/\(CLI --force, console o\)/g, '(o in the plan)'],
  [/--force\b/g, 'o in the plan (override)'],
  // The plan dialog's toggle for the option (OptionSpec.toggle): tab in a cleanup's plan.
  [/\(--remove-driver-files removes it anyway\)/g, '(tab in this plan removes it too)'],
  [/--remove-driver-files\b/g, 'tab in its cleanup plan (remove the driver file)'],
  [/add --write\b/g, 'type :write'],
];

/**
 * `iscsi-console <action> <args> [--write]` as the console does it: the action's key on its row
 * (the console plans from the row, with the same planner); other flags are CLI-only, left as is.
 */
const CLI_COMMAND = /`?iscsi-console ([a-z-]+)((?: (?!--)[^\s;,)`]+)*)((?: --[a-z-]+)*)`?/g;

export function hintFor(text: string, surface: Surface, actions: readonly SurfaceAction[]): string {
  if (surface === 'cli') return text;
  let out = text.replace(CLI_COMMAND, (whole, id: string, args: string, flags: string) => {
    const a = actions.find((x) => x.id === id);
    if (!a?.key || flags.split(' ').some((f) => f !== '' && f !== '--write')) return whole;
    return `${a.key} (${a.title}) on its row${args ? ` (${id}${args})` : ''}`;
  });
  for (const [from, to] of CONSOLE_WORDS) out = out.replace(from, to);
  return out;
}
