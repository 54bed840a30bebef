/**
 * A Plan as lines: exact commands, blast radius, refusals with reasons, risk (§1.5 #9). The same
 * text the CLI prints, so the admin learns the commands (lazydocker commandTemplates).
 */
import type { BlastRadius, Plan, PlanStep, StepProgress } from '../../engine/actions/types.js';
import type { Line } from '../components/scroll-text.js';
import type { Tone } from '../theme.js';

const RISK_TONE: Record<Plan['risk'], Tone> = { low: 'ok', medium: 'warn', high: 'bad' };
const RISK_SYMBOL: Record<Plan['risk'], string> = { low: '·', medium: '!', high: '‼' };

/** What a step does, as one line a shell user recognises. */
export function describeStep(step: PlanStep): string {
  if (step.argv) return `$ ${step.argv.map(quoteArg).join(' ')}`;
  if (step.write) return `write '${step.write.data.trim()}' > ${step.write.path}`;
  if (step.fs) return `${step.fs.op} ${step.fs.path}`;
  if (step.wait) return `wait for ${step.wait.what} (up to ${Math.round(step.wait.timeoutMs / 1000)}s)`;
  return step.id;
}

function quoteArg(a: string): string {
  return /^[\w@%+=:,./[\]-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
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

export function planLines(plan: Plan): Line[] {
  const lines: Line[] = [
    { text: `${plan.title}: ${plan.subject}`, bold: true },
    {
      text: `risk ${RISK_SYMBOL[plan.risk]} ${plan.risk}   confirmation: ${plan.confirm}`,
      tone: RISK_TONE[plan.risk],
    },
  ];
  if (plan.refusals.length) {
    lines.push({ text: '' }, { text: 'Refused', bold: true, tone: 'bad' });
    for (const r of plan.refusals) {
      lines.push({
        text: `  ✗ ${r.reason}${r.overridable ? ' (can be overridden by typed consent)' : ''}`,
        tone: 'bad',
      });
      if (r.hint) lines.push({ text: `    hint: ${r.hint}`, tone: 'dim' });
    }
  }
  for (const w of plan.warnings) lines.push({ text: `  ⚠ ${w}`, tone: 'warn' });
  lines.push({ text: '' }, { text: `Steps (${plan.steps.length})`, bold: true });
  if (plan.steps.length === 0) lines.push({ text: '  nothing to do', tone: 'dim' });
  plan.steps.forEach((s, i) => {
    lines.push({ text: `  ${String(i + 1).padStart(2)}. ${describeStep(s)}` });
    lines.push({ text: `      ${s.why}`, tone: 'dim' });
  });
  lines.push({ text: '' }, { text: 'Blast radius', bold: true });
  let any = false;
  for (const [k, label] of RADIUS_LABELS) {
    const items = plan.blastRadius[k];
    if (!items.length) continue;
    any = true;
    lines.push({
      text: `  ${label} (${items.length}): ${items.join(', ')}`,
      tone: k === 'pods' || k === 'mounts' ? 'warn' : undefined,
    });
  }
  if (!any) lines.push({ text: '  nothing else is touched', tone: 'dim' });
  if (plan.undo.length) {
    lines.push({ text: '' }, { text: 'To undo by hand', bold: true });
    for (const u of plan.undo) lines.push({ text: `  ${u}`, tone: 'dim' });
  }
  return lines;
}

const STATUS_LOOK: Record<StepProgress['status'], { symbol: string; tone: Tone }> = {
  pending: { symbol: '·', tone: 'dim' },
  running: { symbol: '▸', tone: 'accent' },
  done: { symbol: '✓', tone: 'ok' },
  skipped: { symbol: '↷', tone: 'dim' },
  failed: { symbol: '✗', tone: 'bad' },
};

/** The plan's steps with their live status. */
export function progressLines(plan: Plan, steps: readonly StepProgress[]): Line[] {
  return plan.steps.flatMap((s, i) => {
    const p = steps.find((x) => x.stepId === s.id);
    const look = STATUS_LOOK[p?.status ?? 'pending'];
    const dur = p?.durationMs !== undefined ? ` (${p.durationMs} ms)` : '';
    const out: Line[] = [
      { text: `${look.symbol} ${String(i + 1).padStart(2)}. ${describeStep(s)}${dur}`, tone: look.tone },
    ];
    if (p?.detail) out.push({ text: `      ${p.detail}`, tone: p.status === 'failed' ? 'bad' : 'dim' });
    return out;
  });
}
