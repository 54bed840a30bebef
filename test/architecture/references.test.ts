import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every reference in a comment resolves inside the repository (a docs/ page, a heading of it) or is a
 * public URL: scripts/check-references.mjs says which do not. Run as a test so that a new section sign or
 * "issue N" in a comment fails the suite instead of waiting for someone to run the script.
 */
describe('comment references', () => {
  it('all resolve inside the repository', () => {
    const r = spawnSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'check-references.mjs')], {
      encoding: 'utf8',
    });
    expect(r.stdout.trim().split('\n').at(-1)).toBe('0 dangling references in src, test, bench, scripts');
    expect(r.status).toBe(0);
  });
});
