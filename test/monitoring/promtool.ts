/**
 * Debian's promtool (package `prometheus`, which .ci/run installs): the rule tests run the real
 * rule evaluator instead of a reimplementation of PromQL.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(__dirname, '..', '..');
export const PROMTOOL = '/usr/bin/promtool';

export function promtool(...args: string[]): { status: number | null; output: string } {
  if (!existsSync(PROMTOOL))
    throw new Error(`${PROMTOOL} is missing: .ci/run installs it (apt-get install prometheus)`);
  const r = spawnSync(PROMTOOL, args, { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
