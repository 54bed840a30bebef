/**
 * A POSIX ustar archive (IEEE Std 1003.1-2001 "pax" ustar interchange format; GNU tar's
 * doc/tar.texi "Standard"), gzip-compressed with node's zlib: `tar xzf` and every support tool
 * read it, and no dependency is needed for regular files alone. Each member is a 512-byte header
 * (name, mode, size and mtime in octal, checksum) and its data padded to 512 bytes; two zero
 * blocks end the archive.
 */
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

export interface TarEntry {
  /** Relative path inside the archive (`a/b/c.txt`): no leading `/`, no `..`. */
  name: string;
  data: Buffer;
  /** Permission bits (default 0644). */
  mode?: number;
  /** Seconds since the epoch. */
  mtime: number;
}

/** Why a member name cannot go into a ustar header, or undefined when it can. */
export function tarNameProblem(name: string): string | undefined {
  if (name === '' || name.startsWith('/')) return 'not a relative path';
  if (name.split('/').some((p) => p === '' || p === '.' || p === '..'))
    return 'has an empty, . or .. component';
  if (/[\x00-\x1f\x7f]/.test(name)) return 'has a control character';
  if (splitName(name) === undefined) return 'longer than ustar allows (100-byte name, 155-byte prefix)';
  return undefined;
}

/** ustar's name/prefix split: the name's last ≤100 bytes after a `/`, the rest (≤155 bytes) as prefix. */
function splitName(name: string): { name: string; prefix: string } | undefined {
  if (Buffer.byteLength(name) <= 100) return { name, prefix: '' };
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100) return { name: rest, prefix };
  }
  return undefined;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(e: TarEntry): Buffer {
  const split = splitName(e.name);
  if (!split || tarNameProblem(e.name)) throw new Error(`tar member name ${JSON.stringify(e.name)} refused`);
  const h = Buffer.alloc(BLOCK, 0);
  h.write(split.name, 0, 100, 'utf8');
  h.write(octal(e.mode ?? 0o644, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii'); // uid
  h.write(octal(0, 8), 116, 8, 'ascii'); // gid
  h.write(octal(e.data.length, 12), 124, 12, 'ascii');
  h.write(octal(Math.max(0, Math.floor(e.mtime)), 12), 136, 12, 'ascii');
  h.write('        ', 148, 8, 'ascii'); // checksum field counts as spaces while summing
  h.write('0', 156, 1, 'ascii'); // regular file
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write('root', 265, 32, 'ascii');
  h.write('root', 297, 32, 'ascii');
  h.write(split.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

/** The uncompressed archive. */
function tarArchive(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e), e.data);
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(2 * BLOCK, 0));
  return Buffer.concat(parts);
}

/** The `.tar.gz` bytes. */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  return gzipSync(tarArchive(entries), { level: 9 });
}
