/**
 * One gzip member (RFC 1952) assembled from parts, so a scrape's body can be compressed without
 * compressing it per scrape: the parts a snapshot decides are deflated once (off the event loop),
 * the few bytes that change per scrape go in as stored blocks. Every gzip reader reads the result
 * (one member, one CRC), unlike concatenated members, which some clients stop after the first of.
 *
 * Why this is valid DEFLATE (RFC 1951): a raw deflate stream ended with a sync flush (Z_SYNC_FLUSH)
 * ends byte-aligned with no final block, and a fresh stream never refers back before its own start,
 * so such streams can follow one another; a stored block (type 00) is byte-aligned by definition;
 * the member ends with an empty final fixed-Huffman block (`03 00`), the bytes zlib writes for it.
 */
import * as zlib from 'node:zlib';

/** A part deflated once: raw DEFLATE ended by a sync flush (no final block), and its CRC-32. */
export interface DeflatedPart {
  readonly raw: Buffer;
  readonly deflated: Buffer;
}

/** A part of the body: deflated ahead, or plain bytes that go in as stored blocks. */
export type GzipPart = DeflatedPart | Buffer;

/** gzip header: magic, CM=8 (deflate), no flags, no mtime, XFL 0, OS 255 (unknown). */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
/** BFINAL=1, BTYPE=01 (fixed Huffman), end-of-block: an empty final block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);
/** A stored block holds at most this many bytes (LEN is 16 bits). */
const STORED_MAX = 0xffff;

/** Deflates `raw` on libuv's thread pool, ended by a sync flush so more blocks may follow. */
export function deflatePart(raw: Buffer): Promise<DeflatedPart> {
  return new Promise((resolve, reject) =>
    zlib.deflateRaw(raw, { finishFlush: zlib.constants.Z_SYNC_FLUSH }, (e, deflated) =>
      e ? reject(e) : resolve({ raw, deflated }),
    ),
  );
}

/** `raw` as stored (uncompressed) blocks, none final. */
function storedBlocks(raw: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < raw.length; at += STORED_MAX) {
    const chunk = raw.subarray(at, at + STORED_MAX);
    const head = Buffer.alloc(5);
    head[0] = 0; // BFINAL=0, BTYPE=00, padding to the byte boundary
    head.writeUInt16LE(chunk.length, 1);
    head.writeUInt16LE(~chunk.length & 0xffff, 3);
    out.push(head, chunk);
  }
  return out;
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32 (gzip's) of `data` continuing from `crc`: zlib's native one where Node has it (22.2+). */
export function crc32(data: Buffer, crc = 0): number {
  const native = (zlib as { crc32?: (d: Buffer, v: number) => number }).crc32;
  if (native) return native(data, crc);
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const isDeflated = (p: GzipPart): p is DeflatedPart => !Buffer.isBuffer(p);

/** The gzip member of the parts' bytes in order, as buffers to write one after another. */
export function gzipParts(parts: readonly GzipPart[]): Buffer[] {
  const out: Buffer[] = [HEADER];
  let crc = 0;
  let size = 0;
  for (const p of parts) {
    const raw = isDeflated(p) ? p.raw : p;
    if (raw.length === 0) continue;
    crc = crc32(raw, crc);
    size += raw.length;
    if (isDeflated(p)) out.push(p.deflated);
    else out.push(...storedBlocks(p));
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4); // ISIZE: the length modulo 2^32
  out.push(FINAL_BLOCK, trailer);
  return out;
}

/** Whether an Accept-Encoding header accepts gzip (Prometheus sends `gzip`; `gzip;q=0` refuses). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const item of header.split(',')) {
    const [name, ...params] = item.split(';').map((s) => s.trim().toLowerCase());
    if (name !== 'gzip' && name !== 'x-gzip') continue;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
