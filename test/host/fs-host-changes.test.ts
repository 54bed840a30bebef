/**
 * FsHost's changes (write, replace, mkdir, rmdir, unlink) never go through a symbolic link — on the
 * real root `/` (host paths are then real paths: the test works in a temp dir) as under a `--root`
 * — and replaceFile writes a file whole with its mode checked, or leaves the old one as it was.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { HostIoError } from '../../src/engine/host/host.js';
import { pathProblem } from '../../src/engine/host/path-problem.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  // Real path: on `/` a link in the temp dir's own path (macOS /tmp) would be refused too.
  const d = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'fs-host-changes-')));
  dirs.push(d);
  return d;
}

/** The contents of a dir, file by file: what must not change. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).map((n) => [n, fs.readFileSync(join(dir, n), 'utf8')]));
}

/**
 * A tree with `var/lib/kubelet/plugins/vol` a link to `etc` (which holds `iscsi.json` and `keep`), as a Host
 * on `/` sees it (prefix = the temp dir) and as a `--root` Host does (prefix = '').
 */
function planted(kind: 'real' | 'root') {
  const d = tempDir();
  fs.mkdirSync(join(d, 'etc'));
  fs.writeFileSync(join(d, 'etc/iscsi.json'), '{}\n');
  fs.writeFileSync(join(d, 'etc/keep'), 'admin data\n');
  fs.mkdirSync(join(d, 'var/lib/kubelet/plugins'), { recursive: true });
  // Absolute under a root (re-rooted by confinement, still a link), absolute on `/`.
  fs.symlinkSync(kind === 'real' ? join(d, 'etc') : '/etc', join(d, 'var/lib/kubelet/plugins/vol'));
  const host = new FsHost({ root: kind === 'real' ? '/' : d, runner: { mode: 'direct' } });
  const p = kind === 'real' ? d : '';
  return {
    host,
    etc: join(d, 'etc'),
    vol: `${p}/var/lib/kubelet/plugins/vol`,
    plugins: `${p}/var/lib/kubelet/plugins`,
    d,
  };
}

function expectLoop(fn: () => void, op: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(HostIoError);
    expect((e as HostIoError).code).toBe('ELOOP');
    expect((e as HostIoError).op).toBe(op);
    expect((e as Error).message).toMatch(/symbolic link/);
    return;
  }
  throw new Error(`${op} went through the link`);
}

describe('FsHost changes never go through a symlink', () => {
  for (const kind of ['real', 'root'] as const) {
    it(`${kind === 'real' ? 'on the real root /' : 'under a --root'}: write, replace, mkdir, unlink, rmdir through a linked dir are ELOOP`, () => {
      const t = planted(kind);
      const before = contents(t.etc);
      expectLoop(() => t.host.writeText(`${t.vol}/iscsi.json`, '{"evil":1}\n', 0o644), 'write');
      expectLoop(() => t.host.writeText(`${t.vol}/new.json`, '{}\n'), 'write');
      expectLoop(() => t.host.replaceFile(`${t.vol}/iscsi.json`, 'x\n'), 'replace');
      expectLoop(() => t.host.mkdir(`${t.vol}/sub`), 'mkdir');
      expectLoop(() => t.host.mkdir(t.vol), 'mkdir');
      expectLoop(() => t.host.unlink(`${t.vol}/iscsi.json`), 'unlink');
      expectLoop(() => t.host.rmdir(`${t.vol}/sub`), 'rmdir');
      expectLoop(() => t.host.createExclusive(`${t.vol}/lock`, ''), 'create');
      expect(contents(t.etc)).toEqual(before);
      expect(fs.lstatSync(join(t.d, 'var/lib/kubelet/plugins/vol')).isSymbolicLink()).toBe(true);
      // A write onto the link itself is refused too (O_NOFOLLOW, lstat first).
      expectLoop(() => t.host.writeText(t.vol, 'x'), 'write');
      expectLoop(() => t.host.replaceFile(t.vol, 'x'), 'replace');
      expect(contents(t.etc)).toEqual(before);
    });

    it(`${kind === 'real' ? 'on /' : 'under a --root'}: the same changes in a real dir go through (the test can fail)`, () => {
      const t = planted(kind);
      const dir = `${t.plugins}/real`;
      t.host.mkdir(`${dir}/sub`);
      t.host.writeText(`${dir}/iscsi.json`, '{}\n', 0o644);
      t.host.replaceFile(`${dir}/iscsi.json`, '{"a":1}\n');
      expect(t.host.readText(`${dir}/iscsi.json`)).toBe('{"a":1}\n');
      t.host.unlink(`${dir}/iscsi.json`);
      t.host.rmdir(`${dir}/sub`);
      t.host.rmdir(dir);
      expect(t.host.lstat(dir)).toBeUndefined();
    });

    it(`${kind === 'real' ? 'on /' : 'under a --root'}: pathProblem names the link before anything runs`, () => {
      const t = planted(kind);
      const allowed = [t.plugins];
      expect(pathProblem(t.host, 'unlink', `${t.vol}/iscsi.json`, allowed)).toMatch(
        /plugins\/vol is a symbolic link: refusing to unlink/,
      );
      expect(pathProblem(t.host, 'rmdir', t.vol, allowed)).toMatch(/is a symbolic link: refusing to rmdir/);
      expect(pathProblem(t.host, 'mount', t.vol, allowed)).toMatch(/symbolic link/);
      expect(pathProblem(t.host, 'write', `${t.vol}/iscsi.json`, allowed)).toMatch(/symbolic link/);
      expect(pathProblem(t.host, 'mkdir', `${t.plugins}/fresh/sub`, allowed)).toBeUndefined();
      expect(pathProblem(t.host, 'mkdir', `${t.plugins}/../etc`, allowed)).toMatch(/'\.\.'/);
      expect(pathProblem(t.host, 'write', `${t.etc}/keep`, allowed)).toMatch(/not inside/);
    });
  }
});

/** An FsHost whose disk has `free` bytes left: write(2) takes what fits, then fails with ENOSPC. */
class FullDisk extends FsHost {
  constructor(
    root: string,
    private free: number,
  ) {
    super({ root, runner: { mode: 'direct' } });
  }

  protected override writeBytes(path: string, fd: number, buf: Buffer, off: number, len: number): number {
    const n = Math.min(len, this.free);
    if (n === 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    this.free -= n;
    return super.writeBytes(path, fd, buf, off, n);
  }
}

describe("the node's own layout links (the first three components) are followed", () => {
  it('under a --root, /var/lib/kubelet → /data/kubelet: changes land in <root>/data/kubelet', () => {
    const d = tempDir();
    fs.mkdirSync(join(d, 'data/kubelet/plugins'), { recursive: true });
    fs.mkdirSync(join(d, 'var/lib'), { recursive: true });
    fs.symlinkSync('/data/kubelet', join(d, 'var/lib/kubelet'));
    fs.mkdirSync(join(d, 'var/run-real'));
    const host = new FsHost({ root: d, runner: { mode: 'direct' } });
    host.mkdir('/var/lib/kubelet/plugins/vol');
    host.writeText('/var/lib/kubelet/plugins/vol/iscsi.json', '{}\n', 0o644);
    expect(fs.readFileSync(join(d, 'data/kubelet/plugins/vol/iscsi.json'), 'utf8')).toBe('{}\n');
    host.unlink('/var/lib/kubelet/plugins/vol/iscsi.json');
    host.rmdir('/var/lib/kubelet/plugins/vol');
    expect(fs.readdirSync(join(d, 'data/kubelet/plugins'))).toEqual([]);
    // A layout link pointing nowhere inside the root is missing, never followed out of it.
    fs.symlinkSync('/nowhere', join(d, 'var/lib/iscsi'));
    expect(() => host.writeText('/var/lib/iscsi/nodes/x', 'x')).toThrow(/ENOENT/);
    expect(() => host.mkdir('/var/lib/iscsi/nodes')).toThrow(HostIoError);
  });
});

describe('FsHost.replaceFile', () => {
  it('replaces a 0644 file with a 0600 one, whole, nothing left beside it', () => {
    const root = tempDir();
    fs.mkdirSync(join(root, 'etc'));
    fs.writeFileSync(join(root, 'etc/rec'), 'old\n', { mode: 0o644 });
    fs.chmodSync(join(root, 'etc/rec'), 0o644);
    const host = new FsHost({ root, runner: { mode: 'direct' } });
    host.replaceFile('/etc/rec', 'new\n');
    expect(fs.readFileSync(join(root, 'etc/rec'), 'utf8')).toBe('new\n');
    expect(fs.statSync(join(root, 'etc/rec')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(join(root, 'etc'))).toEqual(['rec']);
    host.replaceFile('/etc/rec', 'public\n', 0o644);
    expect(fs.statSync(join(root, 'etc/rec')).mode & 0o777).toBe(0o644);
  });

  it('a full disk mid-write leaves the old file as it was and no temp file; an in-place write is cut', () => {
    const root = tempDir();
    fs.mkdirSync(join(root, 'etc'));
    const old = `# BEGIN RECORD 2.1.8\n${'node.x = y\n'.repeat(20)}# END RECORD\n`;
    fs.writeFileSync(join(root, 'etc/rec'), old);
    const host = new FullDisk(root, 50);
    const e = (() => {
      try {
        host.replaceFile('/etc/rec', old.replace('# END', 'node.session.auth.password = s\n# END'));
      } catch (err) {
        return err as HostIoError;
      }
      return undefined;
    })();
    expect(e?.code).toBe('ENOSPC');
    expect(e?.message).toBe('replace /etc/rec: ENOSPC');
    expect(fs.readFileSync(join(root, 'etc/rec'), 'utf8')).toBe(old);
    expect(fs.readdirSync(join(root, 'etc'))).toEqual(['rec']);
    // What the old in-place write did on the same full disk: the record cut short.
    expect(() => new FullDisk(root, 50).writeText('/etc/rec', `${old}more\n`)).toThrow(/ENOSPC/);
    expect(fs.readFileSync(join(root, 'etc/rec'), 'utf8')).toHaveLength(50);
  });
});
