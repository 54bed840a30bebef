/**
 * Counted child of bench/lib/strace.ts: `syscalls-child.mjs ROOT snapshot|floor|warm`. Warms up with one
 * snapshot and one read of the independent floor (bench/lib/independent-floor.ts), then runs the
 * measured thing once between two marker syscalls that the parent finds in the strace log (`warm`:
 * nothing; perf's counts subtract it).
 */
import { accessSync } from 'node:fs';
import { FsHost } from '../src/engine/host/fs-host.js';
import { takeSnapshot } from '../src/engine/snapshot/index.js';
import { FIXTURE_KUBELET_ROOT } from './lib/fixtures.js';
import { readFloorFacts } from './lib/independent-floor.js';
import { MARK_END, MARK_START } from './lib/strace.js';

const [root, mode] = process.argv.slice(2);
if (!root || (mode !== 'snapshot' && mode !== 'floor' && mode !== 'warm')) {
  process.stderr.write('usage: syscalls-child.mjs ROOT snapshot|floor|warm\n');
  process.exit(2);
}
const host = new FsHost({ root, runner: { mode: 'direct' } });
takeSnapshot(host, { kubeletRoot: FIXTURE_KUBELET_ROOT });
const floor = () => readFloorFacts(root);
floor();

function mark(path: string): void {
  try {
    accessSync(path);
  } catch {
    // ENOENT is the point: the call is only a marker in the trace.
  }
}

mark(MARK_START);
if (mode === 'snapshot') takeSnapshot(host, { kubeletRoot: FIXTURE_KUBELET_ROOT });
else if (mode === 'floor') floor();
mark(MARK_END);
