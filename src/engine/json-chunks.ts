/**
 * JSON.stringify's text of a value, written as UTF-8 chunks instead of returned as one string.
 *
 * `status --json` at 1,000 sessions × 4 LUNs is ~11 MB. One JSON.stringify of the whole snapshot built
 * that as a single string, in two-byte form from the first non-Latin-1 character on (a reason's `→`),
 * then copied it again into UTF-8 for stdout: ~300–700 ms and ~40 MB of garbage for the young
 * generation to copy. The same document stringified by parts — the top levels walked here, each
 * value below them stringified alone — and each part written straight into a chunk buffer costs
 * ~50–100 ms (bench/README.md, "Where goal (a) stands"); a part with a `→` is two-byte on its own.
 */

/** The levels of objects and arrays walked here; below them a value is one JSON.stringify. */
const SPLIT_DEPTH = 3;
/** Bytes per chunk handed to the writer (a chunk is never reused: the writer may keep it). */
const CHUNK_BYTES = 256 * 1024;

/** A plain object or array: walked by parts. Anything else is one JSON.stringify. */
function splittable(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Fills chunk buffers with the parts' UTF-8 and hands each full one to `write`. */
class ChunkSink {
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  private off = 0;

  constructor(private readonly write: (chunk: Uint8Array) => void) {}

  put(text: string): void {
    // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair: 4 bytes for 2 units).
    if (text.length * 3 > this.buf.length - this.off) {
      this.flush();
      if (text.length * 3 > this.buf.length) {
        this.write(Buffer.from(text, 'utf8'));
        return;
      }
    }
    this.off += this.buf.write(text, this.off, 'utf8');
  }

  flush(): void {
    if (this.off === 0) return;
    this.write(this.buf.subarray(0, this.off));
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    this.off = 0;
  }
}

/** What JSON.stringify leaves out of an object (and writes as `null` in an array). */
const omitted = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * What JSON.stringify writes for `key`: the value's toJSON(key) where it has one (called once, as
 * JSON.stringify calls it), else the value. Resolved before the omitted check, since a toJSON may
 * return what JSON leaves out (the key is then dropped, or null in an array).
 */
function jsonValue(key: string, v: unknown): unknown {
  const toJson = v !== null && typeof v === 'object' ? (v as { toJSON?: unknown }).toJSON : undefined;
  return typeof toJson === 'function' ? (toJson as (k: string) => unknown).call(v, key) : v;
}

/** `v`, already through its toJSON (jsonValue), as JSON.stringify writes it. */
function putValue(sink: ChunkSink, v: unknown, depth: number): void {
  // A toJSON's result that has a toJSON of its own is written by its properties here: handed whole
  // to JSON.stringify, that second toJSON would be called, which JSON.stringify never does.
  const walk =
    v !== null &&
    typeof v === 'object' &&
    (typeof (v as { toJSON?: unknown }).toJSON === 'function' || (depth > 0 && splittable(v)));
  if (!walk) {
    sink.put(JSON.stringify(v));
    return;
  }
  const below = Math.max(depth, 1) - 1;
  if (Array.isArray(v)) {
    sink.put('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) sink.put(',');
      const x = jsonValue(String(i), v[i]);
      if (omitted(x)) sink.put('null');
      else putValue(sink, x, below);
    }
    sink.put(']');
    return;
  }
  sink.put('{');
  let first = true;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = jsonValue(k, o[k]);
    if (omitted(x)) continue;
    sink.put(`${first ? '' : ','}${JSON.stringify(k)}:`);
    first = false;
    putValue(sink, x, below);
  }
  sink.put('}');
}

/**
 * Writes `JSON.stringify(value) + end` as UTF-8 chunks, byte for byte the same text. `value` must
 * be JSON-able at its top (an object or array, as a document is); chunks end between parts, so each
 * is whole UTF-8.
 */
export function writeJson(value: object, write: (chunk: Uint8Array) => void, end = ''): void {
  const sink = new ChunkSink(write);
  putValue(sink, jsonValue('', value), SPLIT_DEPTH);
  if (end !== '') sink.put(end);
  sink.flush();
}
