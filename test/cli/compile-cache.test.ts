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

describe('enableCompileCache', () => {
  it('leaves the cache off for the console UI (its resident memory, compile-cache.ts)', () => {
    const dirOf = (nodeModule as { getCompileCacheDir?: () => string | undefined }).getCompileCacheDir;
    const before = dirOf?.();
    enableCompileCache({}, true);
    expect(dirOf?.()).toBe(before);
  });
});
