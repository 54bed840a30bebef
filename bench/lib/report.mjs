// The table: printed with pass/miss marks, written as bench/results.json and bench/README-table.md.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function mark(f) {
  if (f.value === undefined) return 'n/a';
  if (f.pass === undefined) return 'info';
  return f.pass ? 'PASS' : 'MISS';
}

function fmt(v) {
  if (v === undefined) return '—';
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US');
  if (abs >= 10) return (Math.round(v * 10) / 10).toString();
  return (Math.round(v * 1000) / 1000).toString();
}

function targetText(t) {
  return t ? `${t.op === '<=' ? '≤' : '<'} ${fmt(t.value)}` : '';
}

/** Prints every figure with its target and a PASS/MISS mark, then what was not measured. */
export function printTable(figs, res) {
  const rows = figs.map((f) => [
    f.section,
    f.label,
    `${fmt(f.value)} ${f.unit}`,
    targetText(f.target),
    mark(f),
  ]);
  const head = ['section', 'figure', 'value', 'target', 'result'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(`\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
  const missing = res.flatMap((r) => r.notMeasured.map((n) => `${r.measurement}: ${n}`));
  if (missing.length) console.log(`\nnot measured:\n${missing.map((n) => `  - ${n}`).join('\n')}`);
  const misses = figs.filter((f) => f.pass === false).length;
  const passes = figs.filter((f) => f.pass === true).length;
  console.log(`\n${passes} pass, ${misses} miss, ${figs.length - passes - misses} info/not measured`);
}

/** The README table (bench/README-table.md): figures, how each is measured, what is not. */
export function markdown(all, figs, res) {
  const m = all.machine;
  const out = [
    `Last run ${m.date?.slice(0, 16).replace('T', ' ')} UTC on ${m.cores} × ${m.cpu}, Linux ${m.kernel}, node ${m.node}, a shared`,
    `machine (load average ${m.loadavg?.start?.[0] ?? '?'} at the start of the last run): absolute times are noisy; ratios are measured`,
    'interleaved in the same process, and CPU-time figures are not inflated by load. Fixture roots on tmpfs.',
    'Reproduce: `npm install && npm run bench` (and `npm run bench:vm` for the peers); every number is in bench/results.json.',
    '',
    '| Section | Figure | Value | Target | Result |',
    '| --- | --- | --- | --- | --- |',
    ...figs.map(
      (f) =>
        `| ${f.section} | ${f.label} | ${fmt(f.value)} ${f.unit} | ${targetText(f.target)} | ${mark(f)} |`,
    ),
  ];
  const notes = figs.filter((f) => f.note).map((f) => `- **${f.label}**: ${f.note}`);
  const missing = res.flatMap((r) => r.notMeasured.map((n) => `- ${r.measurement}: ${n}`));
  const when = res
    .filter((r) => r.measuredAt)
    .map((r) => `${r.measurement} ${r.measuredAt.slice(11, 16)} UTC (load ${r.loadavgAfter?.[0] ?? '?'})`);
  if (when.length) out.push('', `Each section's own run: ${when.join('; ')}.`);
  if (res.some((r) => r.measurement === 'peers'))
    out.push('', 'The peers section runs in the e2e QEMU guest (real kernel, TCG): `npm run bench:vm`.');
  if (notes.length) out.push('', 'How each figure is measured:', '', ...notes);
  if (missing.length) out.push('', 'Not measured:', '', ...missing);
  return `${out.join('\n')}\n`;
}

/** Writes bench/results.json and bench/README-table.md from a whole run (`all.results`). */
export function writeReport(project, all) {
  const figs = all.results.flatMap((r) => r.figures);
  writeFileSync(join(project, 'bench', 'results.json'), `${JSON.stringify(all, null, 2)}\n`);
  const table = join(project, 'bench', 'README-table.md');
  writeFileSync(table, markdown(all, figs, all.results));
  // The project's formatter owns markdown layout too (aligned table columns): keep `biome check` clean.
  const biome = join(project, 'node_modules', '.bin', 'biome');
  if (existsSync(biome)) spawnSync(biome, ['format', '--write', table], { cwd: project, stdio: 'ignore' });
}
