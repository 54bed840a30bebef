import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RootResolver } from '../../src/engine/host/confine.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { HostIoError } from '../../src/engine/host/host.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { FixtureRoot, IQN1, iscsiJson, KROOT, P1 } from './fixture-root.js';

// Confinement (docs/read-limits.md#confinement-under---root): a --root tree cannot make the Host read, write, unlink or rmdir outside it, and no
// file in it can hang a read or blow up its memory. Each case builds a hostile tree next to an
// "outside" dir standing in for the machine the console runs on (/etc/shadow, a kubelet dir).

const SECRET = 'root:$6$OUTSIDE-SECRET-HASH:19000:0:99999:7:::\n';
const dirs: string[] = [];
const fixtures: FixtureRoot[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  for (const f of fixtures.splice(0)) f.cleanup();
});

/** A temp dir with `root/` (the --root tree) and `outside/` (not under it). */
function world(): { root: string; outside: string; host: FsHost; put: (p: string, text: string) => void } {
  const base = fs.mkdtempSync(path.join(tmpdir(), 'confine-'));
  dirs.push(base);
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'shadow'), SECRET);
  const put = (p: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), text);
  };
  return { root, outside, host: new FsHost({ root, runner: { mode: 'direct' } }), put };
}

function link(root: string, hostPath: string, target: string): void {
  fs.mkdirSync(path.dirname(path.join(root, hostPath)), { recursive: true });
  fs.symlinkSync(target, path.join(root, hostPath));
}

/** ../ enough times to climb far above any temp dir. */
const UP = '../'.repeat(30);

describe('resolution inside the root (chroot semantics)', () => {
  it('re-roots an absolute link and stops `..` at the root, on every read', () => {
    const w = world();
    link(w.root, '/sys/class/x/abs', path.join(w.outside, 'shadow'));
    link(w.root, '/sys/class/x/rel', `${UP}outside/shadow`);
    link(w.root, '/sys/class/x/dir-abs', w.outside);
    link(w.root, '/sys/class/x/dir-rel', `${UP}outside`);
    for (const p of [
      '/sys/class/x/abs',
      '/sys/class/x/rel',
      '/sys/class/x/dir-abs/shadow',
      '/sys/class/x/dir-rel/shadow',
      `/sys/${UP}outside/shadow`,
      `/${UP}${path.relative('/', w.outside)}/shadow`,
    ]) {
      expect(w.host.readText(p), p).toBeUndefined();
      expect(w.host.readTextOrError(p), p).toEqual({ error: 'ENOENT' });
      expect(w.host.stat(p), p).toBeUndefined();
    }
    expect(w.host.readDir('/sys/class/x/dir-abs')).toEqual([]);
    expect(w.host.readDir('/sys/class/x/dir-rel')).toEqual([]);
    // The same links land on the tree's own copy once it has one: that is where they point.
    w.put('/outside/shadow', 'inside\n');
    expect(w.host.readText('/sys/class/x/rel')).toBe('inside\n');
    expect(w.host.readText('/sys/class/x/dir-rel/shadow')).toBe('inside\n');
    w.put(`${w.outside}/shadow`, 're-rooted\n');
    expect(w.host.readText('/sys/class/x/abs')).toBe('re-rooted\n');
    expect(w.host.readDir('/sys/class/x/dir-abs')).toEqual(['shadow']);
  });

  it('follows sysfs-style relative links inside the root (class → devices)', () => {
    const w = world();
    w.put('/sys/devices/platform/host0/session1/iscsi_session/session1/targetname', 'iqn.x\n');
    link(
      w.root,
      '/sys/class/iscsi_session/session1',
      '../../devices/platform/host0/session1/iscsi_session/session1',
    );
    expect(w.host.readText('/sys/class/iscsi_session/session1/targetname')).toBe('iqn.x\n');
    expect(w.host.stat('/sys/class/iscsi_session/session1')).toBe('dir');
    expect(w.host.lstat('/sys/class/iscsi_session/session1')).toBe('symlink');
    expect(w.host.readLink('/sys/class/iscsi_session/session1')).toBe(
      '../../devices/platform/host0/session1/iscsi_session/session1',
    );
    // `..` after a link is taken from where the link leads, as the kernel does.
    expect(w.host.readDir('/sys/class/iscsi_session/session1/..')).toEqual(['session1']);
  });

  it('a symlink loop is ELOOP and a problem line, not a hang or a stack overflow', () => {
    const w = world();
    link(w.root, '/sys/a', 'b');
    link(w.root, '/sys/b', '/sys/a');
    expect(w.host.readTextOrError('/sys/a/x')).toEqual({ error: 'ELOOP' });
    expect(w.host.readTextOrError('/sys/a')).toEqual({ error: 'ELOOP' });
    expect(w.host.takeReadProblems().join('\n')).toMatch(/ELOOP/);
    const r = new RootResolver(w.root);
    expect(() => r.resolve('/sys/a', true)).toThrow(/ELOOP/);
  });

  it('writes, appends, creates, unlinks, rmdirs and mkdirs never land outside', () => {
    const w = world();
    const outsideDir = path.join(w.outside, 'kubelet-dir');
    fs.mkdirSync(path.join(outsideDir, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(outsideDir, 'iscsi.json'), '{}');
    link(w.root, '/sys/block/sdb/device/delete', path.join(w.outside, 'shadow'));
    link(w.root, '/sys/block/sdc/device/delete', `${UP}outside/shadow`);
    link(w.root, '/var/lib/kubelet/plugins/g1', outsideDir);
    link(w.root, '/var/lib/kubelet/plugins/g2', `${UP}outside/kubelet-dir`);
    link(w.root, '/state', w.outside);
    const fail = (fn: () => unknown) => {
      expect(fn).toThrow(HostIoError);
    };
    for (const p of ['/sys/block/sdb/device/delete', '/sys/block/sdc/device/delete'])
      fail(() => w.host.writeText(p, '1'));
    for (const g of ['g1', 'g2']) {
      const d = `/var/lib/kubelet/plugins/${g}`;
      fail(() => w.host.unlink(`${d}/iscsi.json`));
      fail(() => w.host.rmdir(`${d}/sub`));
      fail(() => w.host.writeText(`${d}/iscsi.json`, 'x'));
      fail(() => w.host.mkdir(`${d}/new`));
    }
    // rmdir of the link itself: ENOTDIR, its target untouched.
    fail(() => w.host.rmdir('/var/lib/kubelet/plugins/g1'));
    fail(() => w.host.appendLine('/state/shadow', 'x'));
    fail(() => w.host.replaceFile('/state/shadow', 'x'));
    fail(() => w.host.createExclusive('/state/new-lock', 'x'));
    expect(fs.readFileSync(path.join(w.outside, 'shadow'), 'utf8')).toBe(SECRET);
    expect(fs.readFileSync(path.join(outsideDir, 'iscsi.json'), 'utf8')).toBe('{}');
    expect(fs.readdirSync(outsideDir).sort()).toEqual(['iscsi.json', 'sub']);
    expect(fs.readdirSync(w.outside).sort()).toEqual(['kubelet-dir', 'shadow']);
    // unlink of a final link removes the link, never its target.
    w.host.unlink('/var/lib/kubelet/plugins/g1');
    expect(fs.existsSync(path.join(outsideDir, 'iscsi.json'))).toBe(true);
  });

  it('writes through links that stay inside the root still work (sysfs attributes, kubelet dirs)', () => {
    const w = world();
    w.put('/sys/devices/h/0:0:0:1/delete', '');
    link(w.root, '/sys/block/sdb/device', '../../devices/h/0:0:0:1');
    w.host.writeText('/sys/block/sdb/device/delete', '1');
    expect(fs.readFileSync(path.join(w.root, 'sys/devices/h/0:0:0:1/delete'), 'utf8')).toBe('1');
    fs.mkdirSync(path.join(w.root, 'data'));
    link(w.root, '/var/lib/kubelet', '/data');
    w.host.mkdir('/var/lib/kubelet/plugins/x/y');
    w.host.writeText('/var/lib/kubelet/plugins/x/y/iscsi.json', '{}');
    expect(fs.readFileSync(path.join(w.root, 'data/plugins/x/y/iscsi.json'), 'utf8')).toBe('{}');
    w.host.unlink('/var/lib/kubelet/plugins/x/y/iscsi.json');
    w.host.rmdir('/var/lib/kubelet/plugins/x/y');
    expect(fs.readdirSync(path.join(w.root, 'data/plugins/x'))).toEqual([]);
  });
});

describe('bounded, non-blocking reads', () => {
  it('refuses a 100 MB attribute without reading it (EFBIG, a problem line)', () => {
    const w = world();
    w.put('/sys/class/x/big', '');
    fs.truncateSync(path.join(w.root, 'sys/class/x/big'), 100 * 1024 * 1024);
    expect(w.host.readTextOrError('/sys/class/x/big')).toEqual({ error: 'EFBIG' });
    expect(w.host.takeReadProblems()).toEqual([
      '/sys/class/x/big: 104857600 bytes than the 4096-byte cap for a sysfs attribute (one page); not read',
    ]);
    // One page is fine; one byte more is not.
    w.put('/sys/class/x/page', 'a'.repeat(4096));
    w.put('/sys/class/x/page1', 'a'.repeat(4097));
    expect(w.host.readText('/sys/class/x/page')).toHaveLength(4096);
    expect(w.host.readText('/sys/class/x/page1')).toBeUndefined();
  });

  it('refuses a FIFO at once, by path and through a link (no hang: O_NONBLOCK, fstat)', {
    timeout: 10_000,
  }, () => {
    const w = world();
    fs.mkdirSync(path.join(w.root, 'sys/class/x'), { recursive: true });
    execFileSync('mkfifo', [path.join(w.root, 'sys/class/x/fifo')]);
    link(w.root, '/sys/class/x/to-fifo', 'fifo');
    expect(w.host.readTextOrError('/sys/class/x/fifo')).toEqual({ error: 'ENOTREG' });
    expect(w.host.readTextOrError('/sys/class/x/to-fifo')).toEqual({ error: 'ENOTREG' });
    expect(w.host.openReader('/sys/class/x/fifo')).toBeUndefined();
    expect(w.host.takeReadProblems().join('\n')).toMatch(/fifo: a FIFO, not a regular file; not read/);
    // On the node itself (root /) the same: the kernel follows, fstat refuses.
    const real = new FsHost({ root: '/', runner: { mode: 'direct' } });
    expect(real.readTextOrError(path.join(w.root, 'sys/class/x/fifo'))).toEqual({ error: 'ENOTREG' });
  });

  it('a link to /dev/zero is re-rooted under a root and refused on the node (no 6 GB read)', {
    timeout: 10_000,
  }, () => {
    const w = world();
    link(w.root, '/sys/class/x/zero', '/dev/zero');
    expect(w.host.readTextOrError('/sys/class/x/zero')).toEqual({ error: 'ENOENT' });
    const real = new FsHost({ root: '/', runner: { mode: 'direct' } });
    fs.symlinkSync('/dev/zero', path.join(w.outside, 'zero'));
    expect(real.readTextOrError(path.join(w.outside, 'zero'))).toEqual({ error: 'ENOTREG' });
    expect(real.takeReadProblems().join('\n')).toMatch(/a character device, not a regular file/);
  });

  it('reads procfs-style files of unknown size in chunks up to their cap', () => {
    const w = world();
    const lines = Array.from({ length: 3000 }, (_, i) => `${i} 1 0:${i} / /mnt/m${i} rw - tmpfs t rw`);
    w.put('/proc/1/mountinfo', `${lines.join('\n')}\n`);
    expect(w.host.readText('/proc/1/mountinfo')?.split('\n')).toHaveLength(3001);
  });
});

describe('a hostile tree in a snapshot', () => {
  it('an attribute linked to a file outside (a copy standing in for /etc/shadow) is never read', () => {
    const f = new FixtureRoot('single-sysfs.json');
    fixtures.push(f);
    const outside = fs.mkdtempSync(path.join(tmpdir(), 'confine-out-'));
    dirs.push(outside);
    fs.writeFileSync(path.join(outside, 'shadow'), SECRET);
    const vendor = `${fs.realpathSync(f.at('/sys/block/sda/device'))}/vendor`;
    fs.rmSync(vendor);
    fs.symlinkSync(path.join(outside, 'shadow'), vendor);
    const tn = `${fs.realpathSync(f.at('/sys/class/iscsi_session/session1'))}/targetname`;
    fs.rmSync(tn);
    fs.symlinkSync(`${UP}${path.relative('/', outside)}/shadow`, tn);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(JSON.stringify(snap)).not.toContain('OUTSIDE-SECRET');
    // The session whose targetname leads nowhere inside the root reads as gone, like ENOENT on a node.
    expect(snap.problems).toContain('session1 vanished while being read (logged out?)');
  });

  it('oversized and odd files are problems of their own; the rest of the snapshot is read', {
    timeout: 20_000,
  }, () => {
    const f = new FixtureRoot('single-sysfs.json');
    fixtures.push(f);
    const model = `${fs.realpathSync(f.at('/sys/block/sda/device'))}/model`;
    fs.rmSync(model);
    execFileSync('mkfifo', [model]);
    fs.truncateSync(f.at('/proc/1/mountinfo'), 40 * 1024 * 1024);
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.sessions.map((s) => s.sid)).toEqual([1]);
    expect(snap.problems).toContain(`cannot read /proc/1/mountinfo (EFBIG): mounts unknown`);
    expect(snap.problems.join('\n')).toMatch(/\/model: a FIFO, not a regular file; not read/);
    expect(snap.problems.join('\n')).toMatch(/mountinfo: 41943040 bytes than the 33554432-byte cap/);
  });

  it('a host-style absolute /var/lib/kubelet link is read under the root', () => {
    const f = new FixtureRoot('single-sysfs.json');
    fixtures.push(f);
    const g = f.fsVolume(P1, IQN1, 1, iscsiJson('pv1', [P1], IQN1, 1));
    // Move the kubelet root to /data/kubelet and link it like a node with a separate data disk.
    fs.mkdirSync(f.at('/data'));
    fs.renameSync(f.at(KROOT), f.at('/data/kubelet'));
    fs.symlinkSync('/data/kubelet', f.at(KROOT));
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.kubelet.volumes.map((v) => v.path)).toEqual([g]);
    expect(snap.kubelet.volumes[0]!.metadata).toBeDefined();
  });
});
