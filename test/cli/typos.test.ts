import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { closest, editDistance } from '../../src/cli/suggest.js';
import { captureOutput } from '../helpers/capture-output.js';

/** A terminal on both ends, so a command that fell through to the console would try to open it. */
function tty() {
  const o = captureOutput();
  o.isTTY = true;
  return o;
}

describe('mistyped commands and options', () => {
  it('a mistyped subcommand is exit 2 with a suggestion, never the console', async () => {
    const o = tty();
    expect(await main(['stauts', '--demo'], o)).toBe(2);
    expect(o.err).toContain('unknown command stauts');
    expect(o.err).toContain('did you mean status?');
    expect(o.out).toBe('');
  });

  it('a word that resembles no command gets no suggestion', async () => {
    const o = tty();
    expect(await main(['frobnicate'], o)).toBe(2);
    expect(o.err).toContain('unknown command frobnicate');
    expect(o.err).not.toContain('did you mean');
  });

  it('an unknown option suggests the closest known one', async () => {
    const o = tty();
    expect(await main(['status', '--jsn', '--demo'], o)).toBe(2);
    expect(o.err).toContain('unknown option --jsn');
    expect(o.err).toContain('did you mean --json?');
  });

  it('an option value is not taken for a command', async () => {
    const o = captureOutput();
    expect(await main(['status', '--demo', 'healthy', '--json'], o)).toBe(0);
    expect(JSON.parse(o.out).node.hostname).toBe('sim-node-1');
  });

  it('edit distance counts a swap of neighbours as one edit', () => {
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closest('cleanpu', ['cleanup', 'logout'])).toBe('cleanup');
    expect(closest('x', ['status'])).toBeUndefined();
  });
});
