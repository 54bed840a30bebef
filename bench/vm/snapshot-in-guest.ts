/**
 * Runs in the e2e guest (bench/vm/peers.sh): `node vm-snapshot.mjs RUNS` takes RUNS snapshots of
 * the real node (FsHost on `/`, the production read path) after a warm-up, and the independent
 * floor (bench/lib/independent-floor.ts on `/`), alternating; prints one JSON line with the medians of wall
 * and CPU time (process.cpuUsage: less inflated by a busy host than wall time).
 *
 * The warm-up is long (WARM rounds of both): under QEMU TCG every piece of code V8 compiles or
 * tiers up is translated again by QEMU, so the first rounds measure V8+TCG compiling the snapshot's
 * code (the floor is one small loop), not reading the node; the console refreshes in a long-running
 * process, whose steady state is what a refresh costs.
 */
import { FsHost } from '../../src/engine/host/fs-host.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { readFloorFacts } from '../lib/independent-floor.js';
import { RecordingHost } from '../lib/recording-host.js';
import { median, round } from '../lib/stats.js';

const runs = Number(process.argv[2] ?? 15);
const kubeletRoot = process.argv[3] ?? '/var/lib/kubelet';
const host = new FsHost({ root: '/', runner: { mode: 'direct' } });
const rec = new RecordingHost(host);
const WARM = Number(process.env.BENCH_VM_WARM ?? 10);
takeSnapshot(host, { kubeletRoot });
const snap = takeSnapshot(rec, { kubeletRoot });
const floor = () => readFloorFacts('/');
for (let i = 0; i < WARM; i++) {
  takeSnapshot(host, { kubeletRoot });
  floor();
}
const snapMs: number[] = [];
const floorMs: number[] = [];
const snapCpu: number[] = [];
const floorCpu: number[] = [];
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
for (let i = 0; i < runs; i++) {
  let c0 = process.cpuUsage();
  let t0 = performance.now();
  takeSnapshot(host, { kubeletRoot });
  snapMs.push(performance.now() - t0);
  snapCpu.push(cpuMs(process.cpuUsage(c0)));
  c0 = process.cpuUsage();
  t0 = performance.now();
  floor();
  floorMs.push(performance.now() - t0);
  floorCpu.push(cpuMs(process.cpuUsage(c0)));
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
    snapshotCpuMs: round(median(snapCpu)),
    floorCpuMs: round(median(floorCpu)),
    runs,
    warmRounds: WARM,
    floor: 'independent',
  })}\n`,
);
