/**
 * One CLI subcommand per action of the engine registry (attach, scan, ..., cleanup): usage, options
 * and help come from the registry entries. Flow: snapshot → input → plan → (--dry-run: print) →
 * refusals → confirmation (--yes, or y/N / typed token on a terminal) → applyPlan → result.
 */
import { createInterface } from 'node:readline/promises';
import { applyPlan, blockingRefusals } from '../../engine/actions/apply.js';
import { formatPlan, formatResult } from '../../engine/actions/format.js';
import { ACTIONS } from '../../engine/actions/registry.js';
import type { ActionContext, ActionDef, Plan } from '../../engine/actions/types.js';
import { ExitCode, RefusedError } from '../../engine/errors.js';
import type { OptionSpec } from '../../engine/options.js';
import { takeSnapshot } from '../../engine/snapshot/index.js';
import type { Command, CommandContext } from '../command.js';

const FORCE: OptionSpec = {
  name: 'force',
  type: 'boolean',
  description:
    'Override refusals marked "--force overrides" (outage guard, foreign session, pod mounts); still asks for typed consent on a terminal',
};

/** main's Output may not carry a prompt: ask on the terminal directly (stderr, so stdout stays clean). */
async function ttyPrompt(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

async function confirm(ctx: CommandContext, plan: Plan, forced: boolean): Promise<void> {
  const { globals } = ctx;
  if (globals.yes) return;
  const out = { ...ctx.out, prompt: ctx.out.prompt ?? (ctx.out.isTTY ? ttyPrompt : undefined) };
  if (!out.isTTY || !out.prompt || globals.json) {
    throw new RefusedError(
      'not applied: confirmation needed',
      'add --yes to apply without a terminal (review it first with --dry-run)',
    );
  }
  const token = plan.confirmToken ?? ctx.host.hostname();
  if (plan.confirm === 'typed' || forced) {
    const answer = await out.prompt(
      `Type "${token}" to ${forced ? 'override the refusals and ' : ''}apply: `,
    );
    if (answer.trim() !== token) throw new RefusedError('not applied: the typed confirmation did not match');
  } else if (plan.confirm === 'yn') {
    const answer = await out.prompt('Apply? [y/N] ');
    if (!/^y(es)?$/i.test(answer.trim())) throw new RefusedError('not applied');
  }
}

/** Builds the subcommand for one registry entry. */
export function actionCommand(def: ActionDef): Command {
  return {
    name: def.id,
    summary: def.summary,
    usage: `${def.usage} [--dry-run] [--json] [--write] [--yes] [--force]`,
    options: [...def.cliOptions, FORCE],
    examples: def.examples,
    description:
      'Prints the plan with --dry-run (exact commands, blast radius, refusals, risk). Needs --write to change anything, and --yes without a terminal.\n' +
      'Exit codes: 0 ok · 2 usage · 3 refused (precondition, read-only, not confirmed) · 4 a command failed · 5 timed out · 130 interrupted.',
    async run(ctx, args) {
      const { globals, out, host } = ctx;
      const snap = () => takeSnapshot(host, { kubeletRoot: globals.kubeletRoot });
      const snapshot = snap();
      const options = args.options as Record<string, unknown>;
      const input = def.inputFromCli(args.positionals, options, snapshot);
      const actx: ActionContext = {
        host,
        kubeletRoot: globals.kubeletRoot,
        stateDir: globals.stateDir,
        write: globals.write,
        takeSnapshot: snap,
      };
      const plan = def.plan(input, snapshot, actx);
      const force = options.force === true;
      const blocking = blockingRefusals(plan, actx, force);
      if (globals.dryRun) {
        if (globals.json)
          out.stdout(`${JSON.stringify({ plan, blocked: blocking.map((r) => r.id) }, null, 2)}\n`);
        else out.stdout(formatPlan(plan));
        // A dry run answers "would it be refused?" — read-only alone is what --dry-run is for.
        return blocking.some((r) => r.id !== 'read-only') ? ExitCode.refused : ExitCode.ok;
      }
      if (blocking.length > 0) {
        if (globals.json)
          out.stdout(`${JSON.stringify({ plan, blocked: blocking.map((r) => r.id) }, null, 2)}\n`);
        else out.stderr(formatPlan(plan));
        const overridable = blocking.every((r) => r.overridable);
        throw new RefusedError(
          `refused: ${blocking.map((r) => r.reason).join('; ')}`,
          blocking[0]?.hint ?? (overridable ? 'add --force to override' : undefined),
          blocking.map((r) => r.id),
        );
      }
      if (!globals.json && !globals.yes) out.stdout(formatPlan(plan));
      await confirm(ctx, plan, force && plan.refusals.some((r) => r.overridable));
      const secrets = def.secretsFromCli?.(args.positionals, options) ?? {};
      const result = await applyPlan(plan, actx, {
        force,
        secrets,
        signal: ctx.signal,
        ...(globals.json || !globals.verbose
          ? {}
          : {
              onProgress: (p) => out.stderr(`${p.status} ${p.stepId}${p.detail ? ` — ${p.detail}` : ''}\n`),
            }),
      });
      if (globals.json) out.stdout(`${JSON.stringify({ plan, result }, null, 2)}\n`);
      else out.stdout(formatResult(result));
      if (result.ok) return ExitCode.ok;
      const e = result.error;
      if (!globals.json && e) {
        out.stderr(`iscsi-console: ${e.message}\n`);
        if (e.hint) out.stderr(`hint: ${e.hint}\n`);
      }
      return (e?.exitCode as number | undefined) ?? ExitCode.externalFailed;
    },
  };
}

/** Every action subcommand, in registry order. */
export const ACTION_COMMANDS: readonly Command[] = ACTIONS.map(actionCommand);
