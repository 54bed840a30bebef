import * as fs from 'node:fs';
import { RootResolver } from '../../src/engine/host/confine.js';
import { under } from '../../src/engine/host/path.js';
import type { RecordedRead } from './recording-host.js';

/**
 * The floor (bench/README.md): a minimal loop that does exactly the reads a snapshot did — same files,
 * same directories, same links and stats, in the same order — with synchronous `fs` and nothing
 * else: no parsing, no model, no Host indirection. Paths are rooted once, up front, so the loop is
 * only syscalls plus the unavoidable utf8 decode of each file. Returns a function that runs the loop
 * once and returns a checksum (bytes and entries seen) so the work cannot be optimised away.
 */
export function compileFloor(root: string, reads: readonly RecordedRead[]): () => number {
  const ops = new Uint8Array(reads.length);
  const paths: string[] = new Array(reads.length);
  reads.forEach((r, i) => {
    ops[i] = OP_CODE[r.op];
    paths[i] = under(root, r.path);
  });
  return () => replay(ops, paths, (p) => fs.readFileSync(p, 'utf8').length);
}

const noThrow = { throwIfNoEntry: false } as const;

/**
 * One pass over the recorded ops: 0 reads a file with `readFile`, 5 is an open that fails (ELOOP on
 * a final link), the rest are metaOp. Returns a checksum (bytes and entries seen) so the work cannot
 * be optimised away.
 */
function replay(ops: ArrayLike<number>, paths: readonly string[], readFile: (p: string) => number): number {
  let sum = 0;
  for (let i = 0; i < ops.length; i++) {
    const p = paths[i]!;
    try {
      const op = ops[i]!;
      if (op === 0) sum += readFile(p);
      else if (op === 5) fs.closeSync(fs.openSync(p, READ_NOFOLLOW));
      else sum += metaOp(op, p);
    } catch {
      // Absent/unreadable entries are part of a real read too (ENOENT, ENOTCONN): count and go on.
      sum += 1;
    }
  }
  return sum;
}

/** The replay of one directory, link or stat op (1 readdir, 2 readlink, 3 lstat, 4 stat), shared by both floors. */
function metaOp(op: number, p: string): number {
  switch (op) {
    case 1:
      return fs.readdirSync(p).length;
    case 2:
      return fs.readlinkSync(p).length;
    case 3:
      return fs.lstatSync(p, noThrow) ? 1 : 0;
    case 4:
      return fs.statSync(p, noThrow) ? 1 : 0;
  }
  return 0;
}

const OP_CODE: Record<RecordedRead['op'], number> = {
  readText: 0,
  readTextOrError: 0,
  readDir: 1,
  readLink: 2,
  lstat: 3,
  stat: 4,
};

const READ_NOFOLLOW = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;

/**
 * The floor for a confined `--root` read (docs/read-limits.md#confinement-under---root): the same
 * reads done the way a read under a root must be done at the least — each directory resolved inside
 * the root once per snapshot (the lstat/readlink calls RootResolver makes, recorded here once and
 * replayed as bare syscalls), and each file opened O_NONBLOCK|O_NOFOLLOW, fstat'ed (regular files only) and read into a buffer.
 * No parsing, no caching logic, no Host indirection: what is left between this and a snapshot is
 * the engine's own work.
 */
export function compileConfinedFloor(root: string, reads: readonly RecordedRead[]): () => number {
  const base = root.replace(/\/+$/, '');
  const ops: number[] = [];
  const paths: string[] = [];
  const push = (op: number, p: string) => {
    ops.push(op);
    paths.push(p);
  };
  const r = new RootResolver(base, (op, p) => push(op === 'lstat' ? 3 : 2, p));
  for (const read of reads) {
    try {
      if (read.op === 'readText' || read.op === 'readTextOrError') {
        const { real: dir, name } = r.parentAndName(read.path);
        const real = `${dir}/${name}`;
        if (fs.lstatSync(real, { throwIfNoEntry: false })?.isSymbolicLink()) {
          push(5, real); // the O_NOFOLLOW open that fails with ELOOP
          const t = r.resolve(read.path, true);
          push(0, t.real);
        } else push(0, real);
      } else if (read.op === 'readDir') push(1, r.dirReal(read.path));
      else if (read.op === 'readLink' || read.op === 'lstat') {
        const { real, name } = r.parentAndName(read.path);
        push(read.op === 'readLink' ? 2 : 3, `${real}/${name}`);
      } else r.resolve(read.path, true); // stat: the walk's own lstat calls are the whole of it
    } catch {
      // A resolution that fails fails in the replay at the same syscall.
    }
  }
  const buf = Buffer.allocUnsafe(64 * 1024);
  const read = (p: string): number => {
    const fd = fs.openSync(p, READ_NOFOLLOW);
    try {
      return fs.fstatSync(fd).isFile()
        ? buf.toString('utf8', 0, fs.readSync(fd, buf, 0, buf.length, null)).length
        : 0;
    } finally {
      fs.closeSync(fd);
    }
  };
  return () => replay(ops, paths, read);
}
