/**
 * One CLI subcommand per action of the engine registry (attach, scan, ..., cleanup): usage, options
 * and help come from the registry entries. Flow: snapshot → input → plan → (--dry-run: print) →
 * consent (engine/actions/consent.ts: refusals, --force override, --yes, or y/N / typed token on a
 * terminal) → applyPlan → result.
 */
import { createInterface } from 'node:readline/promises';
import { applyPlan } from '../../engine/actions/apply.js';
import { answerConsents, type Consent, consentFor, READ_ONLY_REFUSAL } from '../../engine/actions/consent.js';
import { actionContext } from '../../engine/actions/context.js';
import { formatResult, stepAction, stepNumber } from '../../engine/actions/format.js';
import { ACTIONS } from '../../engine/actions/registry.js';
import type { ActionDef, Plan, StepProgress } from '../../engine/actions/types.js';
import { ExitCode, errorText, RefusedError } from '../../engine/errors.js';
import type { OptionSpec } from '../../engine/options.js';
import { probedSnapshot } from '../../engine/probe/probed-snapshot.js';
import { takeSnapshot } from '../../engine/snapshot/index.js';
import { safeDeep, safeText } from '../../engine/text/safe-text.js';
import type { Command, CommandContext, Output } from '../command.js';
import { outputWidth, overrideText, planText, wrappedText } from '../plan-text.js';

const FORCE: OptionSpec = {
  name: 'force',
  type: 'boolean',
  description:
    'Override refusals marked "can be overridden" (outage guard, foreign session, pod mounts, session down): a separate act from consent; a terminal asks to type "override <hostname>", without one add --yes',
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

/**
 * Asks what the engine's consent policy (consent.ts) says the admin must do: the override act
 * (the refusals it lifts, then its own token) or ordinary consent (y/N or the typed token).
 */
async function confirm(ctx: CommandContext, consent: Consent, width: number): Promise<void> {
  if (consent.answered) return;
  const prompt = ctx.out.prompt ?? ttyPrompt;
  const { ask } = consent;
  if (ask.kind === 'none') return;
  if (ask.kind === 'override') {
    ctx.out.stderr(overrideText(consent, width));
    const answer = await prompt(`Type "${safeText(ask.token)}" to override the refusals and apply: `);
    if (!answerConsents(ask, answer))
      throw new RefusedError('not applied: the typed override did not match', overrideHint(consent));
    return;
  }
  if (ask.kind === 'typed') {
    const answer = await prompt(`Type "${safeText(ask.token)}" to apply: `);
    if (!answerConsents(ask, answer))
      throw new RefusedError('not applied: the typed confirmation did not match');
    return;
  }
  const answer = await prompt('Apply? [y/N] ');
  if (!answerConsents(ask, answer)) throw new RefusedError('not applied');
}

/** How to override from the CLI: --force, then the override token (or --yes without a terminal). */
function overrideHint(consent: Consent): string {
  return `add --force to override ${[...new Set(consent.overridable.map((r) => r.id))].join(', ')} (a terminal then asks you to type "${consent.overrideToken}"; without one add --yes)`;
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
      'Prints the plan with --dry-run (exact commands, blast radius, refusals, risk) and changes nothing. Needs --write to change anything, and --yes without a terminal. ' +
      'While it runs, each step prints the command it runs on stderr.\n' +
      'Exit codes: 0 ok (a dry run: the plan would run with --write) · 2 usage · 3 refused (precondition, read-only, not confirmed; a dry run: refused by anything but read-only, overridable refusals included unless --force) · 4 a command failed · 5 timed out · 130 interrupted.',
    async run(ctx, args) {
      const { globals, out, host } = ctx;
      const snap = () => takeSnapshot(host, { kubeletRoot: globals.kubeletRoot });
      const actx = actionContext({
        host,
        kubeletRoot: globals.kubeletRoot,
        stateDir: globals.stateDir,
        write: globals.write,
        dryRun: globals.dryRun,
      });
      // In write mode the down sessions' portals are probed first: outage or stuck decides refusals.
      const snapshot = await probedSnapshot(actx, snap());
      const options = args.options as Record<string, unknown>;
      await def.loadCli?.();
      const input = def.inputFromCli(args.positionals, options, snapshot);
      const plan = def.plan(input, snapshot, actx);
      const consent = consentFor(plan, {
        write: globals.write,
        hostname: host.hostname(),
        dryRun: globals.dryRun,
        override: options.force === true,
        // A terminal can answer (main's Output may not carry a prompt: ttyPrompt asks it directly).
        interactive: out.isTTY && !globals.json,
        yes: globals.yes,
      });
      const planJson = () =>
        `${JSON.stringify({ plan, blocked: consent.blocking.map((r) => r.id) }, null, 2)}\n`;
      const width = outputWidth(out, process.env);
      if (globals.dryRun) {
        if (globals.json) out.stdout(planJson());
        else out.stdout(dryRunText(plan, consent.blocking, globals.write, width));
        // A dry run answers "would it run with --write?": read-only alone is what --dry-run is for.
        return consent.blocking.some((r) => r.id !== READ_ONLY_REFUSAL.id) ? ExitCode.refused : ExitCode.ok;
      }
      if (consent.blocking.length > 0) {
        if (globals.json) out.stdout(planJson());
        else out.stderr(planText(plan, width));
        const onlyOverridable = consent.holds.length === 0;
        throw new RefusedError(
          `refused: ${consent.blocking.map((r) => r.reason).join('; ')}`,
          onlyOverridable ? overrideHint(consent) : consent.blocked?.hint,
          consent.blocking.map((r) => r.id),
        );
      }
      if (consent.blocked?.kind === 'empty') {
        // The engine's rule (the console's before): a plan without steps is not applied or journaled.
        if (globals.json) out.stdout(planJson());
        else out.stdout(`${planText(plan, width)}nothing to do\n`);
        return ExitCode.ok;
      }
      if (consent.blocked) throw new RefusedError(consent.blocked.reason, consent.blocked.hint);
      if (!globals.json && !globals.yes) out.stdout(planText(plan, width));
      await confirm(ctx, consent, width);
      const secrets = def.secretsFromCli?.(args.positionals, options) ?? {};
      const result = await applyPlan(plan, actx, {
        force: consent.force,
        secrets,
        signal: ctx.signal,
        ...(globals.json ? {} : { onProgress: progressPrinter(plan, out, width) }),
      });
      if (globals.json) out.stdout(`${JSON.stringify({ plan, result }, null, 2)}\n`);
      else out.stdout(wrappedText(resultLines(formatResult(result, plan)), width));
      if (result.ok) return ExitCode.ok;
      const e = result.error;
      if (!globals.json && e) {
        out.stderr(errorText(e.message, e.hint));
      }
      return (e?.exitCode as number | undefined) ?? ExitCode.externalFailed;
    },
  };
}

/**
 * A dry run's text: the plan, without the read-only refusal (a dry run is the plan only, whatever
 * the mode), then one line that says what the exit code says: it would run with --write (0), or
 * what refuses it (3).
 */
function dryRunText(plan: Plan, blocking: readonly { id: string }[], write: boolean, width: number): string {
  const shown = { ...plan, refusals: plan.refusals.filter((r) => r.id !== READ_ONLY_REFUSAL.id) };
  const refused = [...new Set(blocking.filter((r) => r.id !== READ_ONLY_REFUSAL.id).map((r) => r.id))];
  const verdict =
    refused.length > 0
      ? `DRY RUN: nothing ran; refused (${refused.join(', ')}): it would not run${write ? '' : ' with --write either'}`
      : `DRY RUN: nothing ran; ${write ? 'run it again without --dry-run to apply it' : 'add --write (without --dry-run) to apply it'}`;
  return `${planText(shown, width)}\n${wrappedText([{ text: verdict }], width)}`;
}

const PROGRESS_SYMBOL: Record<StepProgress['status'], string> = {
  pending: '·',
  running: '▸',
  done: '✓',
  skipped: '↷',
  failed: '✗',
};

/**
 * The live progress on stderr, as the console's Progress dialog shows it: each step's command when
 * it starts (`▸  1. $ blockdev --flushbufs /dev/sdd`), then how it ended.
 */
function progressPrinter(plan: Plan, out: Output, width: number): (p: StepProgress) => void {
  const started = new Set<string>();
  return (p) => {
    const i = plan.steps.findIndex((s) => s.id === p.stepId);
    const step = plan.steps[i];
    if (!step || p.status === 'pending') return;
    const lines = progressEventLines(i, step, p, started);
    if (lines.length > 0) out.stderr(wrappedText(safeDeep(lines), width));
  };
}

/**
 * One progress event's lines: a step's command once, when it starts; while it runs, what it is at
 * (a wait says "waiting 12s of 30s"); then how it ended.
 */
function progressEventLines(
  i: number,
  step: Plan['steps'][number],
  p: StepProgress,
  started: Set<string>,
): { text: string; command?: boolean }[] {
  if (p.status !== 'running')
    return [
      {
        text: `${PROGRESS_SYMBOL[p.status]}     ${p.status}${p.durationMs !== undefined ? ` (${p.durationMs} ms)` : ''}${p.detail ? `: ${p.detail}` : ''}`,
      },
    ];
  const lines: { text: string; command?: boolean }[] = [];
  if (!started.has(p.stepId)) {
    started.add(p.stepId);
    lines.push({
      text: `${PROGRESS_SYMBOL.running} ${stepNumber(i)} ${stepAction(step)}`,
      command: Boolean(step.argv || step.write),
    });
  }
  if (p.detail) lines.push({ text: `      … ${p.detail}` });
  return lines;
}

/** formatResult's lines, each step line marked as a command line for wrapping. */
function resultLines(text: string): { text: string; command?: boolean }[] {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((t) => ({ text: t, ...(t.includes(' $ ') ? { command: true } : {}) }));
}

/** Every action subcommand, in registry order. */
export const ACTION_COMMANDS: readonly Command[] = ACTIONS.map(actionCommand);
