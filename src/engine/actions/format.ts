/**
 * Plain-text rendering of plans and results for the CLI (`--dry-run`, the confirmation, the
 * outcome). Plans hold only masked argv, so nothing here can print a CHAP value.
 */
import type { ApplyResult, Plan, PlanStep } from './types.js';

function quote(a: string): string {
  return /^[A-Za-z0-9_./:@%+=,[\]-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** The one-line action of a step: exact argv, attribute write, fs change or wait. */
export function stepAction(s: PlanStep): string {
  if (s.argv) return s.argv.map(quote).join(' ');
  if (s.write) return `echo ${quote(s.write.data)} > ${s.write.path}`;
  if (s.fs) {
    if (s.fs.op === 'write-json') return `write ${s.fs.path}: ${s.fs.data?.trimEnd() ?? ''}`;
    return `${s.fs.op} ${s.fs.path}`;
  }
  if (s.wait)
    return `wait ≤${Math.round(s.wait.timeoutMs / 1000)}s for ${s.wait.what}${s.wait.path ? ` (${s.wait.path})` : ''}`;
  return '(no-op)';
}

export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  lines.push(`${plan.title}: ${plan.subject}`);
  lines.push(
    `risk ${plan.risk} · confirm ${plan.confirm}${plan.confirmToken ? ` (type "${plan.confirmToken}")` : ''}`,
  );
  const b = plan.blastRadius;
  const radius = (
    [
      ['sessions', b.sessions],
      ['devices', b.devices],
      ['maps', b.maps],
      ['mounts', b.mounts],
      ['kubelet volumes', b.kubeletVolumes],
      ['pods', b.pods],
      ['node records', b.nodeRecords],
    ] as const
  ).filter(([, v]) => v.length > 0);
  if (radius.length > 0) {
    lines.push('blast radius:');
    for (const [k, v] of radius) lines.push(`  ${k}: ${v.join(', ')}`);
  }
  if (plan.refusals.length > 0) {
    lines.push('REFUSED:');
    for (const r of plan.refusals) {
      lines.push(`  [${r.id}${r.overridable ? ', --force overrides' : ''}] ${r.reason}`);
      if (r.hint) lines.push(`    hint: ${r.hint}`);
    }
  }
  for (const w of plan.warnings) lines.push(`warning: ${w}`);
  lines.push('steps:');
  plan.steps.forEach((s, i) => {
    const flags = [
      s.group ? `portal ${s.group}` : '',
      s.okExitCodes?.length ? `ok exit ${s.okExitCodes.join('/')}` : '',
      s.warnOnly ? 'warn only' : '',
      s.ignoreFailure ? 'result ignored' : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`  ${i + 1}. ${stepAction(s)}${flags ? `   [${flags}]` : ''}`);
    lines.push(`     ${s.why}`);
  });
  if (plan.undo.length > 0) {
    lines.push('undo (by hand):');
    for (const u of plan.undo) lines.push(`  ${u}`);
  }
  return `${lines.join('\n')}\n`;
}

export function formatResult(r: ApplyResult): string {
  const lines: string[] = [];
  for (const s of r.steps)
    lines.push(`  ${s.status.padEnd(7)} ${s.stepId}${s.detail ? ` — ${s.detail}` : ''}`);
  for (const w of r.warnings ?? []) lines.push(`warning: ${w}`);
  if (r.ok)
    lines.push(`done${r.verified ? ', verified' : ''}${r.devicePath ? ` (device ${r.devicePath})` : ''}`);
  for (const v of r.verification) lines.push(`  ${v}`);
  if (r.journalId) lines.push(`journal id ${r.journalId}`);
  return `${lines.join('\n')}\n`;
}
