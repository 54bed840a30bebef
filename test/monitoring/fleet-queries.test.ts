import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { promtool, REPO } from './promtool.js';

/**
 * README's "Fleet" section shows PromQL a storage team pastes into Prometheus. Each query there is
 * an expr of test/monitoring/queries/fleet-queries.yaml, which promtool evaluates against series
 * shaped as the exporter and kube-state-metrics write them, with the shipped recording rules.
 */
const QUERIES = 'test/monitoring/queries/fleet-queries.yaml';

const squash = (q: string) => q.replace(/\s+/g, ' ').trim();

function readmeQueries(): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Fleet\n');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```promql\n([\s\S]*?)```/g)].map((m) => squash(m[1]!));
}

describe("README's fleet queries", () => {
  it('are the ones promtool evaluates', () => {
    const doc = parse(readFileSync(join(REPO, QUERIES), 'utf8')) as {
      tests: { promql_expr_test?: { expr: string }[] }[];
    };
    const tested = doc.tests.flatMap((t) => t.promql_expr_test ?? []).map((e) => squash(e.expr));
    const shown = readmeQueries();
    expect(shown.length).toBeGreaterThanOrEqual(2);
    for (const q of shown) expect(tested).toContain(q);
  });

  it('give the expected nodes, PVs and claims (promtool test rules)', () => {
    const r = promtool('test', 'rules', QUERIES);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });
});
