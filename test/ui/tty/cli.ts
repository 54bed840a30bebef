/**
 * The CLI a tty test drives: bundled from src/ for this test file, the way scripts/build.mjs bundles
 * it, into a private temp dir. A test never depends on a dist/ left by an earlier `npm run build`
 * (a fresh clone has none, and a stale one would test old code).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { buildCliBundle } from '../../helpers/cli-bundle.js';

export async function ttyCli(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ic-tty-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return buildCliBundle(dir);
}
