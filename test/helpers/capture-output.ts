import type { Output } from '../../src/cli/command.js';

/** A non-terminal Output for main() that keeps what was written to stdout and stderr. */
export function captureOutput(): Output & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    isTTY: false,
    stdout(t: string) {
      o.out += t;
    },
    stderr(t: string) {
      o.err += t;
    },
  };
  return o;
}
