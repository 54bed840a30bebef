/**
 * The kubelet file watches (src/watchers/file-watch.ts, chokidar, shallow): the dirs whose entries
 * kubelet changes are watched (global dirs and pod dirs appear and vanish), never what a filesystem
 * global dir or a pod dir holds (mount points: kubelet's changes there come with a mount change,
 * seen by the poll); block global dirs (never mounted) are watched with their entries. Waits on the
 * callbacks, never sleeps: what must not be reported is checked after a later change that is, as
 * inotify delivers one process's events in order.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { type FileWatch, fileSources, startFileWatch } from '../../src/watchers/file-watch.js';

const KUBELET = '/var/lib/kubelet';
let root: string | undefined;
let w: FileWatch | undefined;
const seen: string[] = [];
let wake: (() => void) | undefined;

afterEach(async () => {
  await w?.close();
  w = undefined;
  seen.length = 0;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** Starts the watch of spec `index` of fileSources and waits for its initial scan. */
async function start(
  index: number,
  setup: (real: (p: string) => string) => void,
): Promise<(p: string) => string> {
  root = mkdtempSync(join(tmpdir(), 'ic-file-watch-'));
  const dir = root;
  const real = (p: string) => join(dir, p);
  setup(real);
  const host = new FsHost({ root: dir, runner: { mode: 'direct' } });
  const spec = fileSources(KUBELET, [])[index]!;
  w = startFileWatch(
    host,
    spec,
    (p) => {
      seen.push(p);
      wake?.();
    },
    (m) => {
      seen.push(`error ${m}`);
      wake?.();
    },
  );
  expect(w).toBeDefined();
  await w!.ready;
  return real;
}

async function next(pred: (p: string) => boolean): Promise<void> {
  while (!seen.some(pred)) await new Promise<void>((resolve) => (wake = resolve));
}

const PLUGIN = `${KUBELET}/plugins/kubernetes.io/iscsi`;
const GLOBAL = `${PLUGIN}/iface-default/10.0.0.1:3260-iqn.2024-01.x:t1-lun-1`;
const GLOBAL2 = `${PLUGIN}/iface-default/10.0.0.1:3260-iqn.2024-01.x:t1-lun-2`;
const BLOCK = `${PLUGIN}/volumeDevices/iface-default/10.0.0.1:3260-iqn.2024-01.x:t1-lun-3`;

describe('file watch (chokidar, shallow)', () => {
  it('is shallow: the plugin dir and its iface dirs, the pods dir, volumeDevices to its block global dirs', () => {
    const specs = fileSources(KUBELET, []);
    expect(specs.map((s) => [s.hostPath, s.depth])).toEqual([
      [PLUGIN, 1],
      [`${KUBELET}/pods`, 0],
      [`${PLUGIN}/volumeDevices`, 2],
    ]);
  });

  it('reports a global dir appearing and vanishing, never what it holds (a mount point)', async () => {
    const real = await start(0, (r) => mkdirSync(r(`${PLUGIN}/iface-default`), { recursive: true }));
    // kubelet's AttachDisk: MkdirAll(globalPDPath), then iscsi.json (persistISCSIFile).
    mkdirSync(real(GLOBAL));
    writeFileSync(real(`${GLOBAL}/iscsi.json`), '{}');
    await next((p) => p === GLOBAL);
    // Inside the dir: iscsi.json rewritten, the mounted filesystem's own files. Not watched; a later
    // change that is reported proves they were not.
    writeFileSync(real(`${GLOBAL}/iscsi.json`), '{"VolName":"pv-x"}');
    writeFileSync(real(`${GLOBAL}/user-data`), 'x');
    mkdirSync(real(GLOBAL2));
    await next((p) => p === GLOBAL2);
    expect(seen.filter((p) => p.startsWith(`${GLOBAL}/`))).toEqual([]);
    // UnmountDevice's RemoveAll: the dir's removal is reported by its parent's watch.
    seen.length = 0;
    rmSync(real(GLOBAL), { recursive: true });
    await next((p) => p === GLOBAL);
    expect(seen.every((p) => !p.startsWith('error'))).toBe(true);
  });

  it('reports an iface dir created after the start with its global dir (a refresh reads both)', async () => {
    const real = await start(0, (r) => mkdirSync(r(PLUGIN), { recursive: true }));
    // A first attach through a new iface: MkdirAll creates both levels in one go.
    const iface = `${PLUGIN}/iface-eth1`;
    mkdirSync(real(`${iface}/10.0.0.2:3260-iqn.2024-01.x:t2-lun-1`), { recursive: true });
    await next((p) => p === iface);
  });

  it('reports pod dirs appearing and vanishing, never what a pod dir holds', async () => {
    const vol = `${KUBELET}/pods/u1/volumes/kubernetes.io~iscsi/pv-1`;
    const real = await start(1, (r) => {
      mkdirSync(r(vol), { recursive: true });
      mkdirSync(r(`${KUBELET}/pods/u1/volumes/kubernetes.io~secret`), { recursive: true });
    });
    writeFileSync(real(`${vol}/user-data`), 'x');
    writeFileSync(real(`${KUBELET}/pods/u1/volumes/kubernetes.io~secret/token`), 'x');
    // A volume dir under a pod dir that exists: seen with the bind mount diskSetUp makes next.
    mkdirSync(real(`${KUBELET}/pods/u1/volumes/kubernetes.io~iscsi/pv-2`));
    mkdirSync(real(`${KUBELET}/pods/u2/volumes/kubernetes.io~iscsi/pv-3`), { recursive: true });
    await next((p) => p === `${KUBELET}/pods/u2`);
    expect(seen.filter((p) => p.startsWith(`${KUBELET}/pods/u1`))).toEqual([]);
    seen.length = 0;
    rmSync(real(`${KUBELET}/pods/u2`), { recursive: true });
    await next((p) => p === `${KUBELET}/pods/u2`);
  });

  it('watches block global dirs (never mounted) with their iscsi.json and per-pod entries', async () => {
    const real = await start(2, (r) => mkdirSync(r(BLOCK), { recursive: true }));
    writeFileSync(real(`${BLOCK}/iscsi.json`), '{}');
    await next((p) => p === `${BLOCK}/iscsi.json`);
    // MapDevice's bind mount target `<globalMapPath>/<podUID>` (a file).
    writeFileSync(real(`${BLOCK}/pod-uid-1`), '');
    await next((p) => p === `${BLOCK}/pod-uid-1`);
    const other = BLOCK.replace('lun-3', 'lun-4');
    mkdirSync(real(other));
    await next((p) => p === other);
    // TearDownDevice's RemoveAll.
    seen.length = 0;
    rmSync(real(BLOCK), { recursive: true });
    await next((p) => p === BLOCK);
    expect(seen.every((p) => !p.startsWith('error'))).toBe(true);
  });

  it('never reports the kubelet root next to the pods dir (chokidar watches the root parent)', async () => {
    const real = await start(1, (r) => mkdirSync(r(`${KUBELET}/pods`), { recursive: true }));
    // kubelet rewrites its checkpoint files next to pods/ all day.
    writeFileSync(real(`${KUBELET}/cpu_manager_state`), '{}');
    mkdirSync(real(`${KUBELET}/pods/u9`));
    await next((p) => p === `${KUBELET}/pods/u9`);
    expect(seen.filter((p) => p.includes('cpu_manager_state'))).toEqual([]);
  });
});
