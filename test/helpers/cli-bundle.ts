/**
 * The CLI bundled the way scripts/build.mjs bundles it, into a private file (dist/ belongs to the
 * build): tests that run the CLI as a real process (signals, locks between processes) use it.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error: plain .mjs build helper without types
import { esmCliOptions } from '../../scripts/esbuild-plugins.mjs';

export async function buildCliBundle(dir: string): Promise<string> {
  const cli = join(dir, 'cli.mjs');
  // One file instead of dist/'s chunks; otherwise the options dist/cli.js is built with.
  await build({ ...esmCliOptions('test'), entryPoints: ['src/cli.ts'], outfile: cli, logLevel: 'error' });
  return cli;
}

/** Waits for a condition (a file appearing, a line logged), checking every few ms; no fixed sleep. */
export async function until(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
