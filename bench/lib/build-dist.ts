import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { projectDir } from './args.js';
import { log } from './output.js';

/** The built CLI the whole-process measurements run. */
export function cliPath(): string {
  return join(projectDir(), 'dist', 'cli.js');
}

/** The project's pinned node (node_modules/.bin/node, node 22). */
export function projectNode(): string {
  return join(projectDir(), 'node_modules', '.bin', 'node');
}

/** `npm run build` (scripts/build.mjs): undefined when dist/cli.js is fresh, else why not. */
export function buildDist(): string | undefined {
  const project = projectDir();
  const t0 = performance.now();
  const r = spawnSync(projectNode(), [join(project, 'scripts', 'build.mjs')], {
    cwd: project,
    encoding: 'utf8',
  });
  if (r.status !== 0)
    return `npm run build failed: ${(r.stderr || r.stdout).trim().split('\n').slice(0, 3).join(' | ')}`;
  log(
    `built dist/cli.js + dist/chunks (entry ${(statSync(cliPath()).size / 1e3).toFixed(1)} kB) in ${Math.round(performance.now() - t0)} ms`,
  );
  return undefined;
}
