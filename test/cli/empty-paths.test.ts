/**
 * An empty path option (an unset shell variable: `--root "$HOST_ROOT"`) is exit 2, never its
 * default: `--root ""` silently meant `/`, the machine the console runs on — with --write too.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';

async function run(argv: string[]): Promise<{ code: number; text: string }> {
  const o = captureOutput();
  const code = await main(argv, o);
  return { code, text: o.out + o.err };
}

describe('empty path options', () => {
  it.each([
    [['status', '--root', '']],
    [['status', '--root=']],
    [['status', '--root', '  ']],
    [['logout', '1', '--root', '', '--write', '--exec', 'direct', '--yes']],
  ])('%j is exit 2 naming --root', async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.text).toContain('--root was given an empty path');
    expect(r.text).toContain('an unset shell variable expands to ""');
  });

  it.each([
    ['kubelet-root', ['status', '--kubelet-root', '']],
    ['state-dir', ['logout', '1', '--state-dir', '', '--dry-run']],
  ])('--%s "" is exit 2 naming it', async (name, argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.text).toContain(`--${name} was given an empty path`);
  });
});
