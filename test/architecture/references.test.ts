import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    expect(r.stdout.trim().split('\n').at(-1)).toBe(
      '0 dangling references in src, test, bench, scripts, README.md, docs',
    );
    expect(r.status).toBe(0);
  });

  it('finds a dead link, a missing path and a missing heading in README and docs (negative control)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ic-refs-'));
    try {
      mkdirSync(join(dir, 'src'));
      mkdirSync(join(dir, 'docs'));
      writeFileSync(join(dir, 'src/here.ts'), '');
      writeFileSync(
        join(dir, 'docs/page.md'),
        '# Page\n\nSee [the top](../README.md#nowhere) and `src/here.ts`.\n',
      );
      writeFileSync(
        join(dir, 'README.md'),
        '# Top\n\n[a page](docs/page.md), [gone](docs/gone.md), `src/gone.ts`.\n',
      );
      spawnSync('git', ['init', '-q'], { cwd: dir });
      spawnSync('git', ['add', '.'], { cwd: dir });
      const r = spawnSync(
        process.execPath,
        [join(__dirname, '..', '..', 'scripts', 'check-references.mjs')],
        {
          cwd: dir,
          encoding: 'utf8',
        },
      );
      expect(r.stdout.trim().split('\n')).toEqual([
        'README.md:3: link docs/gone.md resolves to nothing in the repository',
        'README.md:3: src/gone.ts is not a path of the repository',
        'docs/page.md:3: README.md has no heading #nowhere',
        '3 dangling references in src, test, bench, scripts, README.md, docs',
      ]);
      expect(r.status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
