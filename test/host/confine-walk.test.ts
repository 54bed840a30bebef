/**
 * RootResolver keeps one snapshot's resolved directories (as a tree mirroring the disk) and the
 * last walk: whatever order paths are asked in, every answer must be the one a fresh, uncached
 * chroot-style resolution gives. A small reference resolver here (component by component, lstat and
 * readlink, absolute links re-rooted, `..` stopped at the root) is the oracle for a random tree full
 * of links, dots and doubled slashes.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SYMLINK_HOPS, RootResolver } from '../../src/engine/host/confine.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Mulberry32: a seeded PRNG, so a failure names the seed that reproduces it. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Ref = { canon: string[]; kind: 'dir' | 'file' | 'symlink' | 'other' | 'absent' };

/** The oracle: resolves `path` inside `root` from scratch; throws an Error whose message is the errno. */
function refResolve(root: string, path: string, followLast: boolean): Ref {
  let hops = 0;
  const walk = (comps: string[], start: string[], follow: boolean): Ref => {
    let cur = [...start];
    // Empty components (`//`, a trailing `/`) are nothing; `.` is the directory reached so far.
    const parts = comps.filter((c) => c !== '');
    if (parts.length === 0) return { canon: cur, kind: 'dir' };
    for (let i = 0; i < parts.length; i++) {
      const c = parts[i] as string;
      const last = i === parts.length - 1;
      if (c === '.') {
        if (last) return { canon: cur, kind: 'dir' };
        continue;
      }
      if (c === '..') {
        cur = cur.slice(0, -1);
        if (last) return { canon: cur, kind: 'dir' };
        continue;
      }
      const cand = [...cur, c];
      const st = fs.lstatSync(join(root, ...cand), { throwIfNoEntry: false });
      if (!st) {
        if (last) return { canon: cand, kind: 'absent' };
        throw new Error('ENOENT');
      }
      if (st.isSymbolicLink() && (!last || follow)) {
        if (++hops > MAX_SYMLINK_HOPS) throw new Error('ELOOP');
        const target = fs.readlinkSync(join(root, ...cand));
        const r = walk(target.split('/'), target.startsWith('/') ? [] : cur, true);
        if (last) return r;
        if (r.kind === 'absent') throw new Error('ENOENT');
        if (r.kind !== 'dir') throw new Error('ENOTDIR');
        cur = r.canon;
        continue;
      }
      const kind = st.isDirectory()
        ? 'dir'
        : st.isFile()
          ? 'file'
          : st.isSymbolicLink()
            ? 'symlink'
            : 'other';
      if (last) return { canon: cand, kind };
      if (kind !== 'dir') throw new Error('ENOTDIR');
      cur = cand;
    }
    return { canon: cur, kind: 'dir' };
  };
  return walk(path.split('/'), [], followLast);
}

const real = (root: string, canon: string[]) => (canon.length ? `${root}/${canon.join('/')}` : root);

function outcome(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch (e) {
    return { err: (e as { code?: string }).code ?? (e as Error).message };
  }
}

/** A random tree: dirs, files, and links (relative, absolute, `..`-climbing, dangling, to files, loops). */
function randomTree(rand: () => number): { root: string; paths: string[] } {
  const root = fs.mkdtempSync(join(tmpdir(), 'confine-walk-'));
  made.push(root);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const dirs: string[] = [''];
  const names = ['a', 'b', 'c', 'sys', 'dev', 'x:0:1', 'session1'];
  for (let i = 0; i < 40; i++) {
    const d = `${pick(dirs)}/${pick(names)}${i % 3 === 0 ? i : ''}`;
    if (fs.existsSync(join(root, d))) continue;
    fs.mkdirSync(join(root, d));
    dirs.push(d);
  }
  const all: string[] = [...dirs];
  for (let i = 0; i < 30; i++) {
    const f = `${pick(dirs)}/f${i}`;
    fs.writeFileSync(join(root, f), `v${i}\n`);
    all.push(f);
  }
  for (let i = 0; i < 35; i++) {
    const at = `${pick(dirs)}/l${i}`;
    const to = pick(all);
    const depth = at.split('/').length - 2;
    const targets = [
      to === '' ? '/' : to, // absolute: re-rooted
      `${'../'.repeat(depth)}${to.slice(1)}` || '.', // relative from the link's dir
      `${'../'.repeat(depth + 3)}${to.slice(1)}`, // climbing above the root
      `${to}/missing`,
      `l${(i + 1) % 35}`, // chains and loops among the links
      '../..',
    ];
    fs.symlinkSync(pick(targets), join(root, at));
    all.push(at);
  }
  const paths: string[] = [];
  for (let i = 0; i < 400; i++) {
    let p = pick(all) || '/';
    const r = rand();
    if (r < 0.15) p = `${p}/${pick(['..', '.', 'f1', 'missing', ''])}`;
    else if (r < 0.25) p = p.replace('/', '//');
    else if (r < 0.35) p = `${p}/../${pick(names)}`;
    else if (r < 0.4) p = `${p}/`;
    paths.push(p);
  }
  return { root, paths };
}

describe('RootResolver against a fresh chroot-style resolution', () => {
  for (const [seed, reading] of [1, 2, 3, 4, 5, 6].flatMap((n) => [
    [n, false] as const,
    [n, true] as const,
  ])) {
    it(`gives every answer a fresh resolution gives, in any order (seed ${seed}${reading ? ', in a read' : ''})`, () => {
      const rand = prng(seed);
      const { root, paths } = randomTree(rand);
      const r = new RootResolver(root);
      // In a snapshot's read, missing names are kept too: the answers must not change.
      if (reading) r.reading(true);
      for (const p of paths) {
        const op = Math.floor(rand() * 5);
        if (op === 0) {
          // entry: the parent resolved (followed), the final component not.
          const i = p.replace(/\/+$/, '').lastIndexOf('/');
          const name = p.replace(/\/+$/, '').slice(i + 1);
          const parent = i <= 0 ? '/' : p.replace(/\/+$/, '').slice(0, i);
          const want =
            p.replace(/\/+$/, '') === '' || name === '' || name === '.' || name === '..'
              ? { ok: undefined }
              : outcome(() => {
                  const d = refResolve(root, parent, true);
                  if (d.kind === 'absent') throw new Error('ENOENT');
                  if (d.kind !== 'dir') throw new Error('ENOTDIR');
                  return `${real(root, d.canon)}/${name}`;
                });
          expect(
            outcome(() => r.entry(p)),
            `entry ${p}`,
          ).toEqual(want);
        } else if (op === 1 || op === 2) {
          const want = outcome(() => {
            const d = refResolve(root, p, true);
            if (d.kind === 'absent') throw new Error('ENOENT');
            if (d.kind !== 'dir') throw new Error('ENOTDIR');
            return real(root, d.canon);
          });
          if (op === 1)
            expect(
              outcome(() => r.dirReal(p)),
              `dirReal ${p}`,
            ).toEqual(want);
          else {
            const got = outcome(() => r.dirRealIfAny(p));
            if ((want as { err?: string }).err === 'ENOENT')
              expect([{ ok: undefined }, want], `dirRealIfAny ${p}`).toContainEqual(got);
            else expect(got, `dirRealIfAny ${p}`).toEqual(want);
          }
        } else {
          const follow = op === 3;
          const want = outcome(() => {
            const t = refResolve(root, p, follow);
            return { real: real(root, t.canon), kind: t.kind };
          });
          const got = outcome(() => {
            const t = r.resolve(p, follow);
            return { real: t.real, kind: t.kind };
          });
          expect(got, `resolve ${p} follow=${follow}`).toEqual(want);
        }
      }
    });
  }
});

describe('RootResolver and missing names', () => {
  function tree(): string {
    const root = fs.mkdtempSync(join(tmpdir(), 'iscsi-absent-'));
    made.push(root);
    fs.mkdirSync(join(root, 'sys/block/sda'), { recursive: true });
    return root;
  }

  it('looks a missing directory up once per read, however often it is asked for', () => {
    const root = tree();
    const lstats: string[] = [];
    const r = new RootResolver(root, (op, real) => op === 'lstat' && lstats.push(real));
    r.reading(true);
    for (let i = 0; i < 5; i++) {
      expect(r.dirRealIfAny('/run/udev/data')).toBeUndefined();
      expect(() => r.dirReal('/run/udev')).toThrow('ENOENT');
      expect(() => r.entry(`/run/udev/data/b8:${i}`)).toThrow('ENOENT');
    }
    expect(lstats.filter((p) => p === join(root, 'run'))).toHaveLength(1);
    // Positive control: outside a read every ask looks again.
    r.reading(false);
    lstats.length = 0;
    for (let i = 0; i < 3; i++) expect(r.dirRealIfAny('/run/udev/data')).toBeUndefined();
    expect(lstats.filter((p) => p === join(root, 'run'))).toHaveLength(3);
  });

  it('finds a directory that appeared since a miss outside a read, and in the next read', () => {
    const root = tree();
    const r = new RootResolver(root);
    expect(r.dirRealIfAny('/sys/block/sda/holders')).toBeUndefined();
    fs.mkdirSync(join(root, 'sys/block/sda/holders'));
    expect(r.dirRealIfAny('/sys/block/sda/holders')).toBe(join(root, 'sys/block/sda/holders'));
    r.reading(true);
    expect(r.dirRealIfAny('/sys/block/sda/slaves')).toBeUndefined();
    fs.mkdirSync(join(root, 'sys/block/sda/slaves'));
    r.reading(false);
    r.reading(true);
    expect(r.dirRealIfAny('/sys/block/sda/slaves')).toBe(join(root, 'sys/block/sda/slaves'));
  });
});

describe('RootResolver.list: what a listing teaches the cache', () => {
  for (const seed of [11, 12, 13, 14, 15, 16]) {
    it(`listings between the walks change no answer (seed ${seed})`, () => {
      const rand = prng(seed);
      const { root, paths } = randomTree(rand);
      const r = new RootResolver(root);
      r.reading(true);
      for (const p of paths) {
        const want = outcome(() => {
          const d = refResolve(root, p, true);
          if (d.kind === 'absent') throw new Error('ENOENT');
          if (d.kind !== 'dir') throw new Error('ENOTDIR');
          return real(root, d.canon);
        });
        if (rand() < 0.5) {
          // The listing is the directory's own (fs.readdirSync of where the oracle says it is).
          const listed = outcome(() => r.list(p));
          const ok = (want as { ok?: string }).ok;
          if (ok !== undefined) expect(listed, `list ${p}`).toEqual({ ok: fs.readdirSync(ok) });
          else if ((want as { err?: string }).err === 'ENOENT')
            expect([{ ok: undefined }, want], `list ${p}`).toContainEqual(listed);
          else expect(listed, `list ${p}`).toEqual(want);
        }
        expect(
          outcome(() => r.dirReal(p)),
          `dirReal ${p}`,
        ).toEqual(want);
        const follow = rand() < 0.5;
        expect(
          outcome(() => {
            const t = r.resolve(p, follow);
            return { real: t.real, kind: t.kind };
          }),
          `resolve ${p} follow=${follow}`,
        ).toEqual(
          outcome(() => {
            const t = refResolve(root, p, follow);
            return { real: real(root, t.canon), kind: t.kind };
          }),
        );
      }
    });
  }

  function tree(): string {
    const root = fs.mkdtempSync(join(tmpdir(), 'iscsi-list-'));
    made.push(root);
    fs.mkdirSync(join(root, 'sys/devices/target0:0:0/0:0:0:1/block/sda'), { recursive: true });
    fs.mkdirSync(join(root, 'sys/devices/target0:0:0/0:0:0:2'), { recursive: true });
    fs.mkdirSync(join(root, 'sys/block'), { recursive: true });
    fs.symlinkSync('../devices/target0:0:0/0:0:0:1/block/sda', join(root, 'sys/block/sda'));
    return root;
  }

  /** A resolver in a read, and the lstats it makes. */
  function inRead(root: string): { r: RootResolver; lstats: string[] } {
    const lstats: string[] = [];
    const r = new RootResolver(root, (op, real) => op === 'lstat' && lstats.push(real));
    r.reading(true);
    return { r, lstats };
  }

  it("walks into a listed directory's subdirectories and links without an lstat of them", () => {
    const root = tree();
    const { r, lstats } = inRead(root);
    expect(r.list('/sys/devices/target0:0:0')?.sort()).toEqual(['0:0:0:1', '0:0:0:2']);
    expect(r.list('/sys/block')).toEqual(['sda']);
    lstats.length = 0;
    expect(r.dirReal('/sys/devices/target0:0:0/0:0:0:2')).toBe(join(root, 'sys/devices/target0:0:0/0:0:0:2'));
    expect(r.dirReal('/sys/block/sda')).toBe(join(root, 'sys/devices/target0:0:0/0:0:0:1/block/sda'));
    // Only what no listing showed was looked at: the LUN's `block` and its disk, on the way to the
    // link's target (the link itself and the LUN dirs were listed).
    expect(lstats.map((p) => p.slice(root.length))).toEqual([
      '/sys/devices/target0:0:0/0:0:0:1/block',
      '/sys/devices/target0:0:0/0:0:0:1/block/sda',
    ]);
    // Positive control: the same walks in a fresh resolver, nothing listed, lstat every new name.
    const fresh: string[] = [];
    const f = new RootResolver(root, (op, real) => op === 'lstat' && fresh.push(real));
    f.dirReal('/sys/devices/target0:0:0/0:0:0:2');
    f.dirReal('/sys/block/sda');
    expect(fresh.length).toBeGreaterThan(4);
  });

  it('a listed link swapped for a directory, or gone, since the listing is looked at afresh', () => {
    const root = tree();
    const r = new RootResolver(root);
    r.reading(true);
    expect(r.list('/sys/block')).toEqual(['sda']);
    fs.unlinkSync(join(root, 'sys/block/sda'));
    fs.mkdirSync(join(root, 'sys/block/sda'));
    expect(r.dirReal('/sys/block/sda')).toBe(join(root, 'sys/block/sda'));
    fs.symlinkSync('../devices/target0:0:0/0:0:0:2', join(root, 'sys/block/sdb'));
    expect(r.list('/sys/block')?.sort()).toEqual(['sda', 'sdb']);
    fs.unlinkSync(join(root, 'sys/block/sdb'));
    expect(r.dirRealIfAny('/sys/block/sdb')).toBeUndefined();
  });

  it('a listed link out of the root is followed inside it', () => {
    const root = tree();
    const outside = fs.mkdtempSync(join(tmpdir(), 'iscsi-list-outside-'));
    made.push(outside);
    fs.symlinkSync(outside, join(root, 'sys/block/abs'));
    fs.symlinkSync(`${'../'.repeat(20)}${outside.slice(1)}`, join(root, 'sys/block/rel'));
    const r = new RootResolver(root);
    r.reading(true);
    expect(r.list('/sys/block')?.sort()).toEqual(['abs', 'rel', 'sda']);
    // Dangling inside the root (the outside dir's path does not exist under it).
    expect(() => r.dirReal('/sys/block/abs')).toThrow('ENOENT');
    expect(() => r.dirReal('/sys/block/rel')).toThrow('ENOENT');
    fs.mkdirSync(join(root, outside), { recursive: true });
    r.reading(true);
    r.list('/sys/block');
    expect(r.dirReal('/sys/block/abs')).toBe(join(root, outside));
    expect(r.dirReal('/sys/block/rel')).toBe(join(root, outside));
  });
});
