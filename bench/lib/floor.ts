import * as fs from 'node:fs';
import { under } from '../../src/engine/host/path.js';
import type { RecordedRead } from './recording-host.js';

/**
 * The floor (issue 9 §1): a minimal loop that does exactly the reads a snapshot did — same files,
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
  const noThrow = { throwIfNoEntry: false } as const;
  return function floor(): number {
    let sum = 0;
    for (let i = 0; i < ops.length; i++) {
      const p = paths[i]!;
      try {
        switch (ops[i]) {
          case 0:
            sum += fs.readFileSync(p, 'utf8').length;
            break;
          case 1:
            sum += fs.readdirSync(p).length;
            break;
          case 2:
            sum += fs.readlinkSync(p).length;
            break;
          case 3:
            sum += fs.lstatSync(p, noThrow) ? 1 : 0;
            break;
          case 4:
            sum += fs.statSync(p, noThrow) ? 1 : 0;
            break;
        }
      } catch {
        // Absent/unreadable entries are part of a real read too (ENOENT, ENOTCONN): count and go on.
        sum += 1;
      }
    }
    return sum;
  };
}

const OP_CODE: Record<RecordedRead['op'], number> = {
  readText: 0,
  readTextOrError: 0,
  readDir: 1,
  readLink: 2,
  lstat: 3,
  stat: 4,
};
