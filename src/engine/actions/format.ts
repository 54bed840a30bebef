/**
 * The one rendering of plans: `planLines` gives the text of every line of a plan (exact commands,
 * risk, refusals, blast radius, steps, undo) with its role; the CLI prints it (`formatPlan`) and the
 * console lays the same lines out in its dialog, so the admin reads the same commands in both.
 * Plans hold only masked argv, so nothing here can print a CHAP value.
 */
import { safeDeep } from '../text/safe-text.js';
import type { Consent } from './consent.js';
import type { JournalCommand } from './journal.js';
import type { ApplyResult, BlastRadius, Plan, PlanStep, Refusal } from './types.js';

/** How a line reads: a tone the console colours it with (plain text ignores it). */
type PlanLineTone = 'ok' | 'warn' | 'bad' | 'dim';

export interface PlanLine {
  text: string;
  tone?: PlanLineTone;
  /** Headings and the title. */
  bold?: boolean;
  /**
   * The line is an exact shell command (a step's argv or sysfs write): a layout that must wrap it
   * breaks between its words only (src/ui/dialogs/wrap-lines.ts), never inside one.
   */
  command?: boolean;
}

/** Shell quoting: words of safe characters as they are, anything else in single quotes. */
export function shellQuote(a: string): string {
  return /^[A-Za-z0-9_./:@%+=,[\]-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** An argv as the shell line that runs it (undo lines and hints the admin types by hand). */
export function shellLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/**
 * What one step does, as a line a shell user recognises: `$ <argv>` and `$ echo <data> > <attr>`
 * are the exact commands (a dynamic step's path keeps its `<N>` placeholder, so it is not quoted);
 * filesystem changes and waits are described.
 */
export function stepAction(s: PlanStep): string {
  if (s.argv) return `$ ${shellLine(s.argv)}`;
  if (s.write) return `$ echo ${shellQuote(s.write.data.trimEnd())} > ${s.write.path}`;
  if (s.fs) {
    if (s.fs.op === 'write-json') return `write ${s.fs.path}: ${s.fs.data?.trimEnd() ?? ''}`;
    return `${s.fs.op} ${s.fs.path}`;
  }
  if (s.wait) {
    const where = s.wait.path ? ` (${s.wait.path})` : '';
    // A wait of 0 looks once: "wait ≤0s" would promise a wait that never happens.
    if (s.wait.timeoutMs <= 0) return `check for ${s.wait.what}${where}`;
    return `wait ≤${formatSeconds(s.wait.timeoutMs)} for ${s.wait.what}${where}`;
  }
  return '(no-op)';
}

/** A command a step ran, as the shell line it was (`$ argv`, `$ echo data > attr`, `rmdir path`). */
export function commandText(c: Pick<JournalCommand, 'argv' | 'write' | 'fs'>): string {
  if (c.argv) return `$ ${shellLine(c.argv)}`;
  if (c.write) return `$ echo ${shellQuote(c.write.data.trimEnd())} > ${c.write.path}`;
  if (c.fs) return `${c.fs.op} ${c.fs.path}`;
  return '(no command)';
}

/**
 * A step as an error or a warning names it: its number and what it runs
 * (`step 3 (iscsiadm -m node … --logout -I default)`), never its internal id.
 */
export function stepRef(plan: Plan, step: PlanStep): string {
  const i = plan.steps.indexOf(step);
  const action = stepAction(step).replace(/^\$ /, '');
  return `step ${i < 0 ? '?' : i + 1} (${action})`;
}

/** `10s`, `1.5s`, `0.2s`: a timeout as the admin reads it (never rounded to 0). */
function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 || Number.isInteger(s) ? Math.round(s) : Number(s.toFixed(1))}s`;
}

const RADIUS_LABELS: [keyof BlastRadius, string][] = [
  ['sessions', 'sessions'],
  ['devices', 'devices'],
  ['maps', 'multipath maps'],
  ['mounts', 'mounts'],
  ['kubeletVolumes', 'kubelet volumes'],
  ['pods', 'pods'],
  ['nodeRecords', 'node records'],
];

const RISK_TONE: Record<Plan['risk'], PlanLineTone | undefined> = { low: 'ok', medium: 'warn', high: 'bad' };

/** One refusal as the plan lists it: `[id] reason`, `[id, can be overridden] reason`. */
function refusalLine(r: Refusal): string {
  return `[${r.id}${r.overridable ? ', can be overridden' : ''}] ${r.reason}`;
}

/**
 * `hint` words a refusal's hint and a warning for the surface showing them (engine/text/surface.ts):
 * the CLI prints them as planned, the console passes its rendering (its keys for the CLI's flags).
 */
export function planLines(raw: Plan, hint: (text: string) => string = (t) => t): PlanLine[] {
  // Paths, names and reasons come from the node: shown with control characters made visible.
  const plan = safeDeep(raw);
  const lines: PlanLine[] = [{ text: `${plan.title}: ${plan.subject}`, bold: true }];
  const risk = RISK_TONE[plan.risk];
  lines.push({
    text: `risk ${plan.risk} · confirm ${plan.confirm}${plan.confirmToken ? ` (type "${plan.confirmToken}")` : ''}`,
    ...(risk ? { tone: risk } : {}),
  });
  if (plan.refusals.length > 0) {
    lines.push({ text: '' }, { text: 'REFUSED:', bold: true, tone: 'bad' });
    for (const r of plan.refusals) {
      lines.push({ text: `  ${refusalLine(r)}`, tone: 'bad' });
      if (r.hint) lines.push({ text: `    hint: ${hint(r.hint)}`, tone: 'dim' });
      for (const c of r.commands ?? []) lines.push({ text: `      $ ${c}`, command: true });
    }
  }
  for (const w of plan.warnings) lines.push({ text: `warning: ${hint(w)}`, tone: 'warn' });
  lines.push({ text: '' }, { text: 'Blast radius:', bold: true });
  let any = false;
  for (const [k, label] of RADIUS_LABELS) {
    const items = plan.blastRadius[k];
    if (items.length === 0) continue;
    any = true;
    lines.push({
      text: `  ${label} (${items.length}): ${items.join(', ')}`,
      ...(k === 'pods' || k === 'mounts' ? { tone: 'warn' as const } : {}),
    });
  }
  if (!any) lines.push({ text: '  nothing else is touched', tone: 'dim' });
  lines.push({ text: '' }, { text: `Steps (${plan.steps.length}):`, bold: true });
  if (plan.steps.length === 0) lines.push({ text: '  nothing to do', tone: 'dim' });
  plan.steps.forEach((s, i) => {
    const flags = [
      s.group ? `portal ${s.group}` : '',
      // iscsiadm's "not found" (21, 2) and "exists" (15) exits count as success (docs/iscsiadm.md): said in words.
      s.okExitCodes?.length ? 'ok if already done' : '',
      s.warnOnly ? 'warn only' : '',
      s.ignoreFailure ? 'result ignored' : '',
    ]
      .filter(Boolean)
      .join(', ');
    // The command line holds the command alone (so it can be copied); how it runs goes with the why.
    lines.push({
      text: `  ${stepNumber(i)} ${stepAction(s)}`,
      ...(s.argv || s.write ? { command: true } : {}),
    });
    lines.push({ text: `      ${s.why}${flags ? `   [${flags}]` : ''}`, tone: 'dim' });
  });
  if (plan.undo.length > 0) {
    lines.push({ text: '' }, { text: 'Undo by hand:', bold: true });
    for (const u of plan.undo) lines.push({ text: `  ${u}`, tone: 'dim' });
  }
  return lines;
}

/** ` 1.` … `12.`: step numbers as the plan and the progress list show them. */
export function stepNumber(i: number): string {
  return `${String(i + 1).padStart(2)}.`;
}

/**
 * What the override act lifts, one line per refusal: shown by the console's override step and
 * printed by the CLI before it asks for the override token.
 */
export function overrideLines(raw: Consent): PlanLine[] {
  const consent = safeDeep(raw);
  if (consent.ask.kind !== 'override') return [];
  const n = consent.ask.refusals.length;
  return [
    { text: `OVERRIDE ${n} refusal${n === 1 ? '' : 's'}: the plan runs although`, bold: true, tone: 'bad' },
    ...consent.ask.refusals.map((r) => ({ text: `  ✗ ${refusalLine(r)}`, tone: 'bad' as const })),
  ];
}

/** The plan as the CLI prints it. */
export function formatPlan(plan: Plan): string {
  return `${planLines(plan)
    .map((l) => l.text)
    .join('\n')}\n`;
}

/**
 * A run's outcome as the CLI prints it: each step that was reached by what it ran (`$ blockdev
 * --flushbufs /dev/sdd`, from the plan), never by its internal id, then the verification and the
 * journal id. Without the plan (a journal entry alone) the step's id is all there is.
 */
export function formatResult(raw: ApplyResult, rawPlan?: Plan): string {
  const r = safeDeep(raw);
  const plan = rawPlan ? safeDeep(rawPlan) : undefined;
  const lines: string[] = [];
  for (const s of r.steps) {
    const i = plan ? plan.steps.findIndex((x) => x.id === s.stepId) : -1;
    if (i < 0) {
      lines.push(`  ${s.status.padEnd(7)} ${s.stepId}${s.detail ? ` — ${s.detail}` : ''}`);
      continue;
    }
    // The command alone on its line (it may be copied), what came of it below.
    lines.push(`  ${s.status.padEnd(7)} ${stepNumber(i)} ${stepAction(plan!.steps[i]!)}`);
    if (s.detail) lines.push(`              ${s.detail}`);
  }
  for (const w of r.warnings ?? []) lines.push(`warning: ${w}`);
  if (r.ok)
    lines.push(`done${r.verified ? ', verified' : ''}${r.devicePath ? ` (device ${r.devicePath})` : ''}`);
  for (const v of r.verification) lines.push(`  ${v}`);
  if (r.journalId) lines.push(`journal id ${r.journalId}`);
  return `${lines.join('\n')}\n`;
}
