import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { generateFixtureRoot, sdMajMin, sdName } from '../helpers/generate-fixture-root.js';
import { tempRoot } from '../helpers/materialize-sysfs.js';
import { recordingHost } from './host-wrappers.js';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
}, 300_000);
/** RAM-backed when available: 80,000 small files, and the figure should not measure a disk. */
const SCALE_TMP = fs.existsSync('/dev/shm') ? '/dev/shm' : undefined;

describe('generated fixture roots', () => {
  it('names and numbers sd devices as sd.c does', () => {
    expect([0, 25, 26, 701, 702].map(sdName)).toEqual(['sda', 'sdz', 'sdaa', 'sdzz', 'sdaaa']);
    expect([0, 1, 16, 255, 256].map(sdMajMin)).toEqual(['8:0', '8:16', '65:0', '135:240', '8:256']);
  });

  it('a small root reads back exactly as generated (layout matches the reader)', () => {
    const root = tempRoot('iscsi-gen-');
    roots.push(root);
    const g = generateFixtureRoot(root, { sessions: 6, luns: 2 });
    const snap = takeSnapshot(new FsHost({ root, runner: { mode: 'direct' } }), {
      kubeletRoot: '/var/lib/kubelet',
    });
    expect(snap.problems).toEqual([]);
    expect(snap.sessions).toHaveLength(6);
    expect(snap.sessions.flatMap((s) => s.devices).filter((d) => d.name)).toHaveLength(g.disks);
    expect(snap.multipath).toHaveLength(g.multipathMaps);
    expect(snap.multipath.every((m) => m.slaves.length === 2 && m.failedSlaves.length === 0)).toBe(true);
    expect(snap.kubelet.volumes).toHaveLength(g.kubeletVolumes);
    expect(snap.sessions.map((s) => s.verdict)).toEqual([
      'in-use',
      'in-use',
      'in-use',
      'in-use',
      'in-use',
      'in-use',
    ]);
    expect(snap.sessions.every((s) => s.health === 'ok')).toBe(true);
  });

  it('snapshots 1,000 sessions × 4 LUNs (prints the time; asserts the counts)', () => {
    const root = SCALE_TMP ? fs.mkdtempSync(`${SCALE_TMP}/iscsi-scale-`) : tempRoot('iscsi-scale-');
    roots.push(root);
    const t0 = performance.now();
    const g = generateFixtureRoot(root, { sessions: 1000, luns: 4 });
    const genMs = performance.now() - t0;
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' }); // warm the dentry cache and the JIT
    const times: number[] = [];
    let snap = takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' });
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      snap = takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' });
      times.push(performance.now() - t);
    }
    // The floor: the same reads, replayed with no parsing (what the benchmark compares against).
    const rec = recordingHost(host);
    takeSnapshot(rec.host, { kubeletRoot: '/var/lib/kubelet' });
    const t1 = performance.now();
    for (const r of rec.reads) {
      if (r.op === 'readDir') host.readDir(r.path);
      else if (r.op === 'readLink') host.readLink(r.path);
      else if (r.op === 'lstat') host.lstat(r.path);
      else host.readText(r.path);
    }
    const floorMs = performance.now() - t1;
    const best = Math.min(...times);
    console.log(
      `snapshot 1000 sessions x 4 LUNs: best ${best.toFixed(0)} ms of [${times.map((t) => t.toFixed(0)).join(', ')}]; ` +
        `${rec.reads.length} reads; read-only floor ${floorMs.toFixed(0)} ms (ratio ${(best / floorMs).toFixed(2)}); ` +
        `fixture generated in ${genMs.toFixed(0)} ms`,
    );
    expect(g).toMatchObject({
      sessions: 1000,
      disks: 4000,
      scsiDevices: 5000,
      multipathMaps: 1000,
      targets: 750,
    });
    expect(snap.sessions).toHaveLength(1000);
    expect(snap.sessions.reduce((n, s) => n + s.devices.length, 0)).toBe(5000);
    expect(snap.sessions.reduce((n, s) => n + s.devices.filter((d) => d.name).length, 0)).toBe(4000);
    expect(snap.multipath).toHaveLength(1000);
    expect(snap.kubelet.volumes).toHaveLength(g.kubeletVolumes);
    expect(snap.kubelet.podVolumes).toHaveLength(g.mountedVolumes);
    expect(Object.keys(snap.portalHostMap)).toHaveLength(750);
    expect(snap.problems).toEqual([]);
    expect(snap.sessions.every((s) => s.verdict === 'in-use' || s.verdict === 'orphaned')).toBe(true);
  }, 300_000);
});
