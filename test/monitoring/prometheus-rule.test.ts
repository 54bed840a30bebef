import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from './promtool.js';
import { ruleGroups } from './rule-file.js';

/** The PrometheusRule is the plain rule file's groups under `spec:`, written by scripts/prometheus-rule.mjs. */
describe('PrometheusRule', () => {
  const path = 'deploy/monitoring/iscsi-console-prometheusrule.yaml';
  const doc = parse(readFileSync(join(REPO, path), 'utf8')) as {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace: string };
    spec: { groups: unknown };
  };

  it('is a monitoring.coreos.com/v1 PrometheusRule', () => {
    expect(doc.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(doc.kind).toBe('PrometheusRule');
    expect(doc.metadata.name).toBe('iscsi-console');
  });

  it('carries exactly the plain rule file groups', () => {
    expect(doc.spec.groups).toEqual(ruleGroups());
  });

  it('is what the generator writes (run node scripts/prometheus-rule.mjs after editing the rules)', () => {
    const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'prometheus-rule.mjs'), '--check'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
