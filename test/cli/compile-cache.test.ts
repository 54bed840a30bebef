import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enableCompileCache, privateCacheDir } from '../../src/cli/compile-cache.js';

describe('privateCacheDir (where the npm build keeps its compile cache)', () => {
  let tmp: string;
  const uid = process.getuid?.() ?? 0;
  const name = `iscsi-console-compile-cache-${uid}`;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'compile-cache-test-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('creates a per-user directory only its owner can use', () => {
    const dir = privateCacheDir(tmp);
    expect(dir).toBe(join(tmp, name));
    expect(statSync(dir!).mode & 0o777).toBe(0o700);
    // Second run: the same directory again.
    expect(privateCacheDir(tmp)).toBe(dir);
  });

  it('refuses a directory others can write (planted code cache would run as root)', () => {
    mkdirSync(join(tmp, name));
    chmodSync(join(tmp, name), 0o777);
    expect(privateCacheDir(tmp)).toBeUndefined();
  });

  it('refuses a symlink in its place', () => {
    mkdirSync(join(tmp, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(tmp, 'elsewhere'), join(tmp, name));
    expect(privateCacheDir(tmp)).toBeUndefined();
  });

  it('gives up quietly where it cannot create the directory', () => {
    expect(privateCacheDir(join(tmp, 'missing', 'deeper'))).toBeUndefined();
  });
});

/**
 * The directory Node reports after `enableCompileCache(env, consoleUi)` in a fresh node process
 * (the cache is process-wide: turning it on here would change the test worker itself).
 */
function cacheDirAfter(consoleUi: boolean, env: Record<string, string> = {}): string {
  const tmp = mkdtempSync(join(tmpdir(), 'compile-cache-child-'));
  try {
    const src = join(import.meta.dirname, '../../src/cli/compile-cache.ts');
    const script = [
      `const m = await import(${JSON.stringify(src)});`,
      `m.enableCompileCache(${JSON.stringify(env)}, ${consoleUi});`,
      `const mod = await import('node:module');`,
      `process.stdout.write(String(mod.getCompileCacheDir?.() ?? 'off'));`,
    ].join('\n');
    const { NODE_COMPILE_CACHE: _a, NODE_DISABLE_COMPILE_CACHE: _b, ...rest } = process.env;
    const r = spawnSync(
      process.execPath,
      ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script],
      { encoding: 'utf8', env: { ...rest, TMPDIR: tmp }, timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.replace(tmp, '<tmp>');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe('enableCompileCache', () => {
  it('leaves the cache off for the console UI (its resident memory, compile-cache.ts)', () => {
    const dirOf = (nodeModule as { getCompileCacheDir?: () => string | undefined }).getCompileCacheDir;
    const before = dirOf?.();
    enableCompileCache({}, true);
    expect(dirOf?.()).toBe(before);
    expect(cacheDirAfter(true)).toBe('off');
  });

  it('positive control: a one-shot command turns it on, in the private directory', () => {
    const uid = process.getuid?.() ?? 0;
    // Node keeps a per-version subdirectory inside the directory it was given.
    expect(cacheDirAfter(false)).toMatch(new RegExp(`^<tmp>/iscsi-console-compile-cache-${uid}/v22\\.`));
    // Node's own opt-out still wins.
    expect(cacheDirAfter(false, { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('off');
  });
});
