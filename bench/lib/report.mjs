// The table: printed with pass/miss marks; a full run writes bench/results.json and README.md's
// bench table (between its markers), rendered by bench/lib/render-table.ts from the one row
// definition (bench/lib/table-rows.ts). A partial run writes only .cache/bench/results.partial.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundle, OUT_DIR } from './bundle.mjs';

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

/** The table renderer (TypeScript, shared with the test), bundled once per process. */
async function renderer() {
  const out = join(OUT_DIR, 'render-table.mjs');
  const err = await bundle('bench/lib/render-table.ts', out);
  if (err) throw new Error(`cannot build bench/lib/render-table.ts: ${err}`);
  return import(`${pathToFileURL(out).href}?t=${Date.now()}`);
}

/** Writes bench/results.json and README.md's bench table from a whole run (`all.results`). */
export async function writeReport(project, all) {
  const { renderTable, withTable } = await renderer();
  writeFileSync(join(project, 'bench', 'results.json'), `${JSON.stringify(all, null, 2)}\n`);
  const readme = join(project, 'README.md');
  writeFileSync(readme, withTable(readFileSync(readme, 'utf8'), renderTable(all)));
}
