import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type AllResults,
  renderTable,
  TABLE_END,
  TABLE_START,
  tableIn,
  targetText,
} from '../../bench/lib/render-table.js';
import { TABLE_ROWS } from '../../bench/lib/table-rows.js';

const PROJECT = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(PROJECT, 'README.md'), 'utf8');
const results = JSON.parse(readFileSync(join(PROJECT, 'bench', 'results.json'), 'utf8')) as AllResults;

/** The table's rows as README shows them: [section, label, value, target, result]. */
function tableRows(block: string): string[][] {
  return block
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| Section') && !l.startsWith('| ---'))
    .map((l) =>
      l
        .slice(2, -2)
        .split(/(?<!\\) \| /)
        .map((c) => c.trim()),
    );
}

describe("README's bench table", () => {
  const block = tableIn(readme);

  it('sits between its markers, once', () => {
    expect(readme.split(TABLE_START)).toHaveLength(2);
    expect(readme.split(TABLE_END)).toHaveLength(2);
    expect(block).toBeDefined();
  });

  it('is exactly what the renderer makes from bench/results.json (nothing edited by hand)', () => {
    expect(block).toBe(renderTable(results));
  });

  it('changes when a figure in results.json changes (the comparison can fail)', () => {
    const changed = structuredClone(results);
    const tabled = new Set(TABLE_ROWS.map((r) => r.id));
    const f = changed.results
      .flatMap((r) => r.figures)
      .find((x) => x.value !== undefined && tabled.has(x.id));
    expect(f).toBeDefined();
    for (const r of changed.results) for (const x of r.figures) if (x.id === f!.id) x.value = x.value! + 1;
    expect(renderTable(changed)).not.toBe(block);
  });

  it('has one row per definition in bench/lib/table-rows.ts, in order, with its label and target', () => {
    const rows = tableRows(block ?? '');
    expect(rows.map((r) => [r[0], r[1]?.replaceAll('\\|', '|'), r[3]])).toEqual(
      TABLE_ROWS.map((d) => [d.section, d.label, targetText(d.target)]),
    );
  });

  it('takes PASS/MISS from the definition’s target, not from a measurement’s own', () => {
    const withOwnTarget = structuredClone(results);
    for (const r of withOwnTarget.results)
      for (const f of r.figures) Object.assign(f, { target: { op: '<=', value: -1 }, pass: false });
    expect(renderTable(withOwnTarget)).toBe(renderTable(results));
  });

  it('defines each row once, with a note saying what it measures', () => {
    const ids = TABLE_ROWS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of TABLE_ROWS) expect(r.note.length, r.id).toBeGreaterThan(20);
  });
});
