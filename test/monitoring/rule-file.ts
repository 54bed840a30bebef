/** The shipped rule file, parsed: its groups, alerts and recording rules. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO } from './promtool.js';

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RuleGroup {
  name: string;
  rules: Rule[];
}

export const RULE_FILE = 'deploy/monitoring/iscsi-console-rules.yaml';

export function ruleGroups(path = RULE_FILE): RuleGroup[] {
  return (parse(readFileSync(join(REPO, path), 'utf8')) as { groups: RuleGroup[] }).groups;
}

export function alerts(): Rule[] {
  return ruleGroups().flatMap((g) => g.rules.filter((r) => r.alert !== undefined));
}
