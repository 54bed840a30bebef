/**
 * bench/README.md — the snapshot in-process against the independent floor (bench/lib/independent-floor.ts:
 * a separate minimal reader of the facts the snapshot lists, sharing no engine code), at each
 * fixture size: CPU of alternating runs in the same process, the reads of each side counted by kind
 * (the snapshot's through RecordingHost, the floor's by itself, one classifier: bench/lib/read-kinds.ts),
 * so reads beyond the floor are numbers, and syscalls of one of each (perf). The whole-process
 * figures (the performance goals) are bench/measure-process.ts.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { FsHost } from '../src/engine/host/fs-host.js';
import type { Snapshot } from '../src/engine/model.js';
import { takeSnapshot } from '../src/engine/snapshot/index.js';
import { benchArgs, collectGarbage } from './lib/args.js';
import { figure } from './lib/figure.js';
import { FIXTURE_KUBELET_ROOT, fixtureRoot } from './lib/fixtures.js';
import { floorDisagreements } from './lib/floor-agreement.js';
import { readFloorFacts } from './lib/independent-floor.js';
import { log, Output } from './lib/output.js';
import { profileSnapshots } from './lib/profile.js';
import {
  countRead,
  emptyKindCounts,
  type KindCounts,
  kindTotal,
  READ_KINDS,
  type ReadClass,
} from './lib/read-kinds.js';
import { type RecordedRead, RecordingHost } from './lib/recording-host.js';
import { median, round, summarise } from './lib/stats.js';
import { countSyscalls, countSyscallsPerf } from './lib/strace.js';
import { targetOf } from './lib/table-rows.js';

const LUNS = 4;
const args = benchArgs();
const sizes = args.sizes ?? [100, 1000];
const out = new Output('snapshot');
const profiles: Record<string, string> = {};

function snapshotOnce(host: FsHost | RecordingHost): Snapshot {
  return takeSnapshot(host, { kubeletRoot: FIXTURE_KUBELET_ROOT });
}

/** Wall and CPU ms (user+system) of one synchronous run, after a gc(). */
function timeSync(fn: () => unknown): { wall: number; cpu: number } {
  collectGarbage();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

const CLASS_OF: Record<RecordedRead['op'], ReadClass> = {
  readText: 'file',
  readTextOrError: 'file',
  readDir: 'dir',
  readLink: 'meta',
  lstat: 'meta',
  stat: 'meta',
};

function snapshotCounts(reads: readonly RecordedRead[]): KindCounts {
  const c = emptyKindCounts();
  for (const r of reads) countRead(c, r.path, CLASS_OF[r.op]);
  return c;
}

function total(c: KindCounts): { file: number; dir: number; meta: number; all: number } {
  const t = { file: 0, dir: 0, meta: 0, all: 0 };
  for (const k of READ_KINDS) {
    t.file += c[k].file;
    t.dir += c[k].dir;
    t.meta += c[k].meta;
    t.all += kindTotal(c[k]);
  }
  return t;
}

const n = (v: number) => v.toLocaleString('en-US');

async function measureSize(sessions: number, csi = 0): Promise<void> {
  const key = `${sessions}${csi ? `-csi${csi}` : ''}`;
  const label = `${n(sessions)} × ${LUNS}${csi ? `, ${n(csi)} CSI volumes` : ''}`;
  const root = fixtureRoot(sessions, LUNS, csi);
  const host = new FsHost({ root, runner: { mode: 'direct' } });
  const rec = new RecordingHost(host);
  snapshotOnce(host);
  rec.reset();
  const snap = snapshotOnce(rec);
  rec.recording = false;
  const reads = [...rec.reads];
  const floorCounts = emptyKindCounts();
  const facts = readFloorFacts(root, floorCounts);
  const disagree = floorDisagreements(snap, facts);
  for (const d of disagree) log(`${label}: the floor disagrees with the snapshot: ${d}`);

  const warm = sessions <= 100 ? 10 : 1;
  let pairMs = 0;
  for (let i = 0; i < warm; i++)
    pairMs = timeSync(() => snapshotOnce(host)).wall + timeSync(() => readFloorFacts(root)).wall;
  const runs = Math.max(
    args.quick ? 3 : 5,
    Math.min(41, Math.floor((args.quick ? 2_000 : 12_000) / Math.max(pairMs, 0.01))),
  );
  const snapT: { wall: number; cpu: number }[] = [];
  const floorT: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so neither always inherits the other's cache/GC state.
    if (i % 2 === 0) {
      snapT.push(timeSync(() => snapshotOnce(host)));
      floorT.push(timeSync(() => readFloorFacts(root)));
    } else {
      floorT.push(timeSync(() => readFloorFacts(root)));
      snapT.push(timeSync(() => snapshotOnce(host)));
    }
  }
  const s = summarise(snapT.map((t) => t.wall));
  const f = summarise(floorT.map((t) => t.wall));
  const sCpu = median(snapT.map((t) => t.cpu));
  const fCpu = median(floorT.map((t) => t.cpu));
  const id = (x: string) => `snapshot.${key}.${x}`;
  const add = (x: string, value: number | undefined, unit: string, detail?: object) =>
    out.add(
      figure({
        id: id(x),
        section: 'snapshot',
        label: `${label}: ${x}`,
        value,
        unit,
        target: targetOf(id(x)),
        ...(detail ? { detail } : {}),
      }),
    );
  const devices = snap.sessions.reduce((a, x) => a + x.devices.length, 0);
  add('ms', round(s.median), `ms (CPU ${round(sCpu)} ms)`, {
    ...s,
    sanity: `${snap.sessions.length} sessions, ${devices} SCSI devices, ${snap.multipath.length} maps`,
  });
  add('floor-ms', round(f.median), `ms (CPU ${round(fCpu)} ms)`, { ...f });
  if (disagree.length)
    out.skip(`${label}: no floor ratio: the floor disagrees with the snapshot: ${disagree.join('; ')}`);
  else
    add('ratio', round(sCpu / fCpu), `× (wall ${round(s.median / f.median)} ×; ${runs} runs each)`, {
      runs,
      wallRatio: round(s.median / f.median),
    });
  const sc = snapshotCounts(reads);
  const st = total(sc);
  const ft = total(floorCounts);
  add(
    'reads',
    st.all,
    `/ ${n(ft.all)} (files ${n(st.file)} / ${n(ft.file)}, dirs ${n(st.dir)} / ${n(ft.dir)}, links+stats ${n(st.meta)} / ${n(ft.meta)})`,
    {
      snapshot: sc,
      floor: floorCounts,
    },
  );
  add(
    'beyond',
    st.all - ft.all,
    `(files ${n(st.file - ft.file)}, dirs ${n(st.dir - ft.dir)}, links+stats ${n(st.meta - ft.meta)})`,
  );
  for (const k of READ_KINDS) {
    const a = sc[k];
    const b = floorCounts[k];
    add(
      `beyond.${k}`,
      kindTotal(a) - kindTotal(b),
      `(files ${n(a.file)} − ${n(b.file)}, dirs ${n(a.dir)} − ${n(b.dir)}, links+stats ${n(a.meta)} − ${n(b.meta)})`,
    );
  }

  if (sessions <= 1000 && !args.profile) {
    const perf = countSyscallsPerf(root);
    if ('error' in perf) out.skip(`syscalls at ${label}: ${perf.error}`);
    else add('syscalls', perf.snapshot, `/ ${n(perf.floor)}`);
    if (sessions === 100) {
      const trace = countSyscalls(root, sessions);
      if ('error' in trace) out.skip(`syscall breakdown (strace): ${trace.error}`);
      else out.attach('syscallsPerKindAt100', trace);
    }
  }
  if (sessions >= 1000 && !csi && !args.quick && !args.profile) {
    profiles[key] = profileSnapshots(root, 2);
    await promisesRatio(root, reads, label, id('promises-ratio'));
  }
}

/**
 * Sync fs against fs/promises for the same reads (the snapshot's recorded read list, plain paths
 * below the root, both sides): the async side in batches of 64 with Promise.all, as an async Host
 * would issue them, so the figure is not one await per read.
 */
async function promisesRatio(root: string, reads: readonly RecordedRead[], label: string, figureId: string) {
  const paths = reads.map((r) => ({ op: r.op, p: root + r.path }));
  const syncRead = (r: (typeof paths)[number]): number => {
    if (r.op === 'readText' || r.op === 'readTextOrError') return fs.readFileSync(r.p, 'utf8').length;
    if (r.op === 'readDir') return fs.readdirSync(r.p).length;
    if (r.op === 'readLink') return fs.readlinkSync(r.p).length;
    return (r.op === 'lstat' ? fs.lstatSync(r.p) : fs.statSync(r.p)) ? 1 : 0;
  };
  const asyncRead = async (r: (typeof paths)[number]): Promise<number> => {
    if (r.op === 'readText' || r.op === 'readTextOrError') return (await fsp.readFile(r.p, 'utf8')).length;
    if (r.op === 'readDir') return (await fsp.readdir(r.p)).length;
    if (r.op === 'readLink') return (await fsp.readlink(r.p)).length;
    return (r.op === 'lstat' ? await fsp.lstat(r.p) : await fsp.stat(r.p)) ? 1 : 0;
  };
  const guard = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch {
      return fallback;
    }
  };
  const runSync = () => paths.reduce((a, r) => a + guard(() => syncRead(r), 1), 0);
  const runAsync = async () => {
    let sum = 0;
    for (let i = 0; i < paths.length; i += 64) {
      const got = await Promise.all(paths.slice(i, i + 64).map((r) => asyncRead(r).catch(() => 1)));
      for (const g of got) sum += g;
    }
    return sum;
  };
  runSync();
  await runAsync();
  const syncMs: number[] = [];
  const asyncMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    let t0 = performance.now();
    runSync();
    syncMs.push(performance.now() - t0);
    collectGarbage();
    t0 = performance.now();
    await runAsync();
    asyncMs.push(performance.now() - t0);
  }
  const ratio = median(asyncMs) / median(syncMs);
  out.add(
    figure({
      id: figureId,
      section: 'snapshot',
      label: `${label}: fs/promises (batches of 64) ÷ sync fs, same reads`,
      value: round(ratio),
      unit: `× (${n(Math.round(median(asyncMs)))} / ${n(Math.round(median(syncMs)))} ms, ${n(paths.length)} reads)`,
      detail: { asyncMs: summarise(asyncMs), syncMs: summarise(syncMs) },
    }),
  );
}

try {
  for (const size of sizes) {
    try {
      await measureSize(size);
    } catch (e) {
      out.skip(`${size} sessions: ${(e as Error).message}`);
    }
    // A CSI-heavy node (1,000 CSI volumes: kubelet CSI dirs, vol_data.json, connectors, Trident files).
    if (size === 1000) {
      try {
        await measureSize(size, 1000);
      } catch (e) {
        out.skip(`${size} sessions with 1,000 CSI volumes: ${(e as Error).message}`);
      }
    }
  }
} finally {
  if (Object.keys(profiles).length > 0) out.attach('profiles', profiles);
  out.write();
}
