/**
 * Counted child of bench/lib/strace.ts: `syscalls-child.mjs ROOT snapshot|floor|warm`. Warms up with one
 * recorded snapshot (which also yields the floor's read list), then runs the measured thing once
 * between two marker syscalls that the parent finds in the strace log (`warm`: nothing; perf's
 * counts subtract it).
 */
import { accessSync } from 'node:fs';
import { FsHost } from '../src/engine/host/fs-host.js';
import { takeSnapshot } from '../src/engine/snapshot/index.js';
import { FIXTURE_KUBELET_ROOT } from './lib/fixtures.js';
import { compileConfinedFloor as compileFloor } from './lib/floor.js';
import { RecordingHost } from './lib/recording-host.js';
import { MARK_END, MARK_START } from './lib/strace.js';

const [root, mode] = process.argv.slice(2);
if (!root || (mode !== 'snapshot' && mode !== 'floor' && mode !== 'warm')) {
  process.stderr.write('usage: syscalls-child.mjs ROOT snapshot|floor|warm\n');
  process.exit(2);
}
const host = new FsHost({ root, runner: { mode: 'direct' } });
const rec = new RecordingHost(host);
takeSnapshot(rec, { kubeletRoot: FIXTURE_KUBELET_ROOT });
const floor = compileFloor(root, rec.reads);
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
