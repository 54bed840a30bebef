import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { spawnLineStream } from '../../src/engine/host/runner.js';
import { fileSources, startFileWatch } from '../../src/watchers/file-watch.js';
import { blockMountLines, probeProc } from '../../src/watchers/proc-probe.js';
import { createRefresher } from '../../src/watchers/refresher.js';
import { parseUeventLine, startUdevSource } from '../../src/watchers/udev-source.js';

const roots: string[] = [];
function tempRoot(): string {
  const r = mkdtempSync(join(tmpdir(), 'watchers-'));
  roots.push(r);
  return r;
}
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('udev monitor lines', () => {
  it('parses kernel uevent lines and skips the header', () => {
    expect(parseUeventLine('monitor will print the received events for:')).toBeUndefined();
    expect(
      parseUeventLine('KERNEL[1234.567890] add      /devices/platform/host0/session1 (iscsi_session)'),
    ).toEqual({
      action: 'add',
      devpath: '/devices/platform/host0/session1',
      subsystem: 'iscsi_session',
    });
  });

  it('reports the source inactive when the host cannot stream', () => {
    const status: [boolean, string][] = [];
    const host = new FsHost({ root: tempRoot(), runner: { mode: 'direct' } });
    const noStream = {
      ...host,
      kind: host.kind,
      root: host.root,
      spawnStream: undefined,
    } as unknown as FsHost;
    expect(
      startUdevSource(
        noStream,
        () => undefined,
        (a, d) => status.push([a, d]),
      ),
    ).toBeUndefined();
    expect(status[0]?.[0]).toBe(false);
  });
});

describe('spawnLineStream', () => {
  it('streams lines and reports the exit', async () => {
    const lines: string[] = [];
    const s = spawnLineStream(['sh', '-c', 'printf "a\\nb\\n"; printf c; echo oops >&2; exit 3'], {
      onLine: (l) => lines.push(l),
    });
    const exit = await s.exited;
    expect(lines).toEqual(['a', 'b']);
    expect(exit).toMatchObject({ exitCode: 3, stderr: 'oops' });
  });

  it('says when the program is missing', async () => {
    const s = spawnLineStream(['no-such-program-here'], { onLine: () => undefined });
    expect((await s.exited).spawnError).toBeDefined();
  });

  it('stops a long-running monitor', async () => {
    const s = spawnLineStream(['sleep', '30'], { onLine: () => undefined });
    await s.stop();
    expect((await s.exited).exitCode).toBeNull();
  });
});

describe('mountinfo probe', () => {
  it('ignores virtual mounts (major 0) and swap usage counters', () => {
    const root = tempRoot();
    mkdirSync(join(root, 'proc/1'), { recursive: true });
    const base = '22 1 8:1 / / rw - ext4 /dev/sda1 rw\n';
    writeFileSync(join(root, 'proc/1/mountinfo'), base);
    writeFileSync(
      join(root, 'proc/swaps'),
      'Filename Type Size Used Priority\n/dev/sdb2 partition 1024 0 -2\n',
    );
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    const a = probeProc(host);
    writeFileSync(
      join(root, 'proc/1/mountinfo'),
      `${base}90 22 0:55 / /run/containerd/x rw - overlay overlay rw\n`,
    );
    writeFileSync(
      join(root, 'proc/swaps'),
      'Filename Type Size Used Priority\n/dev/sdb2 partition 1024 512 -2\n',
    );
    const b = probeProc(host, a);
    expect(b.fingerprint).toBe(a.fingerprint);
    writeFileSync(join(root, 'proc/1/mountinfo'), `${base}91 22 8:16 / /mnt rw - ext4 /dev/sdb rw\n`);
    expect(probeProc(host, b).fingerprint).not.toBe(a.fingerprint);
    expect(blockMountLines('1 0 0:5 / /proc rw - proc proc rw')).toBe('');
  });
});

describe('file watches', () => {
  it('sees a global dir added and removed but not the files inside it (a mount point)', async () => {
    const root = tempRoot();
    const plugin = join(root, 'var/lib/kubelet/plugins/kubernetes.io/iscsi');
    const dir = join(plugin, 'iface-default/127.0.0.1:3260-iqn.x-lun-1');
    mkdirSync(dir, { recursive: true });
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    const spec = fileSources('/var/lib/kubelet', [])[0]!;
    const seen: string[] = [];
    let wake: (() => void) | undefined;
    const record = (p: string) => {
      seen.push(p);
      wake?.();
    };
    const w = startFileWatch(host, spec, record, (m) => record(`error ${m}`));
    expect(w).toBeDefined();
    await w!.ready;
    // Resolves on the watcher's own callback: no sleeping.
    const next = async (pred: (p: string) => boolean) => {
      while (!seen.some(pred)) await new Promise<void>((resolve) => (wake = resolve));
    };
    // Inside the global dir (kubelet's changes there come with a mount change, seen by the poll).
    writeFileSync(join(dir, 'somefile'), 'user data');
    writeFileSync(join(dir, 'iscsi.json'), '{}');
    const other = join(plugin, 'iface-default/127.0.0.1:3260-iqn.x-lun-2');
    mkdirSync(other);
    await next((p) => p.endsWith('-lun-2'));
    expect(seen).toEqual([
      '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-iqn.x-lun-2',
    ]);
    seen.length = 0;
    rmSync(dir, { recursive: true });
    await next((p) => p.endsWith('-lun-1'));
    await w!.close();
  });

  it('returns undefined for a dir that does not exist yet', () => {
    const host = new FsHost({ root: tempRoot(), runner: { mode: 'direct' } });
    const spec = fileSources('/var/lib/kubelet', [])[0]!;
    expect(
      startFileWatch(
        host,
        spec,
        () => undefined,
        () => undefined,
      ),
    ).toBeUndefined();
  });
});

describe('refresher', () => {
  it('runs one refresh at a time and coalesces requests behind it', async () => {
    const reasons: string[] = [];
    let release: (() => void) | undefined;
    const r = createRefresher(async (why) => {
      reasons.push(why);
      if (reasons.length === 1) await new Promise<void>((res) => (release = res));
    }, 10);
    const first = r.request('a');
    const b = r.request('b');
    const c = r.request('c');
    expect(b).toBe(c);
    await Promise.resolve();
    release!();
    await Promise.all([first, b, c]);
    expect(reasons).toEqual(['a', 'b, c']);
    await r.idle();
  });
});

describe('sysfs prober', () => {
  it('reads disk states each tick and a session state only when its disks do not vouch for it', async () => {
    const { FixtureRoot } = await import('../snapshot/fixture-root.js');
    const { SysfsProber } = await import('../../src/watchers/sysfs-probe.js');
    const f = new FixtureRoot('single-sysfs.json');
    try {
      const prober = new SysfsProber(f.host());
      const first = prober.probe();
      expect(first).toMatchObject({ sessions: 1, devices: 3 });
      const idle = prober.probe();
      // 3 listings + 2 disk states (sda, sdb); LUN 0 is a controller; the session's state is implied.
      expect(idle.reads).toBe(5);
      expect(idle.fingerprint).toBe(first.fingerprint);
      f.setAttr('/sys/block/sdb/device/state', 'offline\n');
      const offline = prober.probe();
      expect(offline.fingerprint).not.toBe(idle.fingerprint);
      expect(offline.reads).toBe(6);
      // With a disk not running, the session's own state is read: FAILED alone moves the fingerprint.
      f.setAttr('/sys/class/iscsi_session/session1/state', 'FAILED\n');
      expect(prober.probe().fingerprint).not.toBe(offline.fingerprint);
    } finally {
      f.cleanup();
    }
  });
});

describe('FsHost.openReader', () => {
  it('re-reads a kept-open file from offset 0 and reports a closed reader as gone', () => {
    const root = tempRoot();
    mkdirSync(join(root, 'sys/x'), { recursive: true });
    writeFileSync(join(root, 'sys/x/state'), 'running\n');
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    const r = host.openReader('/sys/x/state')!;
    expect(r.read()).toBe('running\n');
    writeFileSync(join(root, 'sys/x/state'), 'offline\n');
    expect(r.read()).toBe('offline\n');
    r.close();
    expect(r.read()).toBeUndefined();
    expect(host.openReader('/sys/x/missing')).toBeUndefined();
  });

  it('sees a real sysfs attribute regenerated on every read', () => {
    const host = new FsHost({ root: '/', runner: { mode: 'direct' } });
    const r = host.openReader('/sys/class/net/lo/operstate');
    if (!r) return; // no sysfs in this sandbox
    const a = r.read();
    expect(a).toBe(host.readText('/sys/class/net/lo/operstate'));
    expect(r.read()).toBe(a);
    r.close();
  });
});
