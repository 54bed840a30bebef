/**
 * `--state-dir` with `--demo` is refused (exit 2, saying why and what to do): the simulated node
 * lives in a temporary tree behind the Host seam, so a journal "in" DIR would silently land inside
 * it and vanish. Nothing is created in DIR, for any command, the console included.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('--state-dir with --demo', () => {
  for (const argv of [
    ['cleanup', '4', '--write', '--yes'],
    ['status'],
    [], // the console
  ]) {
    it(`${argv[0] ?? 'console'}: exit 2 with the reason and a way out; DIR stays empty`, async () => {
      dir = fs.mkdtempSync(join(tmpdir(), 'demo-state-'));
      const o = captureOutput();
      o.isTTY = true;
      expect(await main([...argv, '--demo', 'incident', '--state-dir', dir], o)).toBe(2);
      expect(o.err).toContain('--state-dir cannot be used with --demo');
      expect(o.err).toContain('gone when the demo exits');
      expect(o.err).toContain('drop --state-dir');
      expect(o.out).toBe('');
      expect(fs.readdirSync(dir)).toEqual([]);
    });
  }

  it('without --state-dir the demo journals on the simulated node as before', async () => {
    const o = captureOutput();
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write', '--yes'], o)).toBe(0);
    expect(o.out).toContain('journal id');
  });
});
