/** The CLI's Output collected in memory: what main() wrote to stdout and to stderr. */
import type { Output } from '../../src/cli/command.js';

export interface CapturedOutput {
  out: Output;
  stdout: () => string;
  stderr: () => string;
}

export function captureOutput(): CapturedOutput {
  let so = '';
  let se = '';
  return {
    out: {
      stdout: (t) => {
        so += t;
      },
      stderr: (t) => {
        se += t;
      },
      isTTY: false,
    },
    stdout: () => so,
    stderr: () => se,
  };
}
