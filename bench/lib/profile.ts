import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeBin, projectDir } from './args.js';

/**
 * CPU-profiles `runs` snapshots of a fixture root in a fresh process (bench/profile-child.ts under
 * `node --cpu-prof`) and returns bench/profile-summary.mjs's text: the top frames by self time and
 * by source file. Used when a target is missed, so the report names the code responsible.
 */
export function profileSnapshots(root: string, runs: number): string {
  const child = process.env.BENCH_HELPER_PROFILE_CHILD;
  if (!child)
    return `not profiled: ${process.env.BENCH_HELPER_ERR_PROFILE_CHILD ?? 'profile helper not built'}`;
  const dir = mkdtempSync(join(tmpdir(), 'iscsi-console-bench-prof-'));
  try {
    const r = spawnSync(nodeBin(), ['--cpu-prof', `--cpu-prof-dir=${dir}`, child, root, String(runs)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (r.status !== 0)
      return `not profiled: profile child exited ${r.status}: ${r.stderr.trim().slice(-300)}`;
    const s = spawnSync(nodeBin(), [join(projectDir(), 'bench', 'profile-summary.mjs'), dir, '12'], {
      encoding: 'utf8',
    });
    return s.stdout.replace(dir, '<tmp>');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
