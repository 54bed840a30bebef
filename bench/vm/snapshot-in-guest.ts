/**
 * Runs in the e2e guest (bench/vm/peers.sh): `node vm-snapshot.mjs RUNS` takes RUNS snapshots of
 * the real node (FsHost on `/`, the production read path) after a warm-up, and the floor (the same
 * reads replayed with bare sync fs), alternating; prints one JSON line with the medians.
 */
import { FsHost } from '../../src/engine/host/fs-host.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { compileFloor } from '../lib/floor.js';
import { RecordingHost } from '../lib/recording-host.js';
import { median, round } from '../lib/stats.js';

const runs = Number(process.argv[2] ?? 15);
const kubeletRoot = process.argv[3] ?? '/var/lib/kubelet';
const host = new FsHost({ root: '/', runner: { mode: 'direct' } });
const rec = new RecordingHost(host);
takeSnapshot(host, { kubeletRoot });
const snap = takeSnapshot(rec, { kubeletRoot });
const floor = compileFloor('/', rec.reads);
floor();
const snapMs: number[] = [];
const floorMs: number[] = [];
for (let i = 0; i < runs; i++) {
  let t0 = performance.now();
  takeSnapshot(host, { kubeletRoot });
  snapMs.push(performance.now() - t0);
  t0 = performance.now();
  floor();
  floorMs.push(performance.now() - t0);
}
process.stdout.write(
  `${JSON.stringify({
    sessions: snap.sessions.length,
    devices: snap.sessions.reduce((n, s) => n + s.devices.length, 0),
    multipath: snap.multipath.length,
    files: (rec.counts.readText ?? 0) + (rec.counts.readTextOrError ?? 0),
    hostCalls: rec.reads.length,
    snapshotMs: round(median(snapMs)),
    floorMs: round(median(floorMs)),
    runs,
  })}\n`,
);
