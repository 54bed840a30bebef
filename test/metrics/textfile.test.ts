/** `metrics --textfile`: bad input is a clear error (exit 2) that writes nothing; a rewrite replaces the file whole. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';

const dir = mkdtempSync(join(tmpdir(), 'ic-textfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('metrics --textfile', () => {
  it('refuses a name the collector would not read, and a missing directory (exit 2, nothing written)', async () => {
    const a = captureOutput();
    expect(await main(['metrics', '--demo', 'healthy', '--textfile', join(dir, 'iscsi.txt')], a)).toBe(2);
    expect(a.err).toContain('reads only *.prom files');
    const b = captureOutput();
    expect(
      await main(['metrics', '--demo', 'healthy', '--textfile', join(dir, 'nope', 'iscsi.prom')], b),
    ).toBe(2);
    expect(b.err).toContain('does not exist');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('replaces an existing file whole, mode 0644, and leaves no temp file', async () => {
    const file = join(dir, 'iscsi.prom');
    writeFileSync(file, 'PREVIOUS-FILE-CONTENT\n', { mode: 0o600 });
    const c = captureOutput();
    expect(await main(['metrics', '--demo', 'healthy', '--textfile', file], c)).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# HELP ')).toBe(true);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain('PREVIOUS-FILE-CONTENT');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(['iscsi.prom']);
    expect(existsSync(file)).toBe(true);
  });

  it('--max-sessions takes a whole number', async () => {
    const c = captureOutput();
    expect(await main(['metrics', '--demo', 'healthy', '--max-sessions', 'lots'], c)).toBe(2);
    expect(c.err).toContain('--max-sessions takes a whole number');
  });
});
