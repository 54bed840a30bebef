/**
 * A node-sourced label value made fit for the exposition format: valid UTF-8 (a lone surrogate,
 * which is what invalid bytes can leave in a JS string, becomes U+FFFD) and at most 1 KiB of it, cut
 * at a character boundary with a marker. Everything else — control bytes, ESC, quotes — is kept as
 * it is and escaped by the writer where the format says so: a label value is data, not terminal text.
 */

/** Longest label value, in UTF-8 bytes (marker included). */
export const MAX_LABEL_BYTES = 1024;
/** Ends a value that was cut. */
export const CUT_MARKER = '…[cut]';

const encoder = new TextEncoder();
const SURROGATE = /[\uD800-\uDFFF]/;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function labelValue(raw: string): string {
  const text = SURROGATE.test(raw) ? raw.replace(LONE_SURROGATE, '\uFFFD') : raw;
  // Fast path: a UTF-8 character is at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= MAX_LABEL_BYTES || encoder.encode(text).length <= MAX_LABEL_BYTES) return text;
  const budget = MAX_LABEL_BYTES - encoder.encode(CUT_MARKER).length;
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + n > budget) break;
    bytes += n;
    end += ch.length;
  }
  return text.slice(0, end) + CUT_MARKER;
}
