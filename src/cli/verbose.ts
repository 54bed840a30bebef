/**
 * `-v`: every command on stderr as it starts (`+ [3] iscsiadm -m node … --login`) and as it ends
 * (`  [3] exit 0 in 41 ms`). The argv comes masked from the host wrapper (CHAP values passed as
 * secrets are `********`); as a second guard the value after `-n <CHAP key> -v` is masked too, and
 * every word goes through the same escaping as the rest of the output.
 */
import { CHAP_KEYS } from '../engine/actions/chap-keys.js';
import { shellQuote } from '../engine/actions/format.js';
import type { RunResult } from '../engine/host/host.js';
import type { CommandObserver } from '../engine/host/observed-host.js';
import { safeText } from '../engine/text/safe-text.js';

const MASK = '********';

/** argv with any value set for a CHAP key (`-n node.session.auth.password -v X`) masked. */
export function maskChapValues(argv: readonly string[]): string[] {
  return argv.map((a, i) =>
    i >= 3 && argv[i - 1] === '-v' && argv[i - 3] === '-n' && CHAP_KEYS.includes(argv[i - 2]!) ? MASK : a,
  );
}

function outcome(r: RunResult): string {
  if (r.spawnError) return `could not start (${r.spawnError})`;
  if (r.timedOut) return 'timed out';
  return r.exitCode === null ? 'killed' : `exit ${r.exitCode}`;
}

/** The observer that writes `-v` lines with `write` (the CLI's stderr). */
export function verboseObserver(write: (text: string) => void): CommandObserver {
  return {
    started(id, argv) {
      write(`+ [${id}] ${safeText(maskChapValues(argv).map(shellQuote).join(' '))}\n`);
    },
    finished(id, r) {
      write(`  [${id}] ${outcome(r)} in ${r.durationMs} ms\n`);
    },
  };
}
