/**
 * The one escaping function for text shown to a person. Every byte from a node is untrusted: a
 * target name the array hands out, a kubelet dir name copied from a PV spec, an attribute, a
 * command's stderr. Written raw to a terminal, `ESC ] 0 ; … BEL` retitles it, `ESC [ … m` repaints
 * it, `\r` or `\n` forges a line, and a bidi override (U+202E) reorders what follows on the line.
 *
 * Made visible instead of dropped, so an admin still sees that a name is odd:
 * - C0 controls, DEL and C1 controls (ECMA-48: 0x9b is a one-byte CSI, 0x9d OSC) → `\xHH`,
 *   with `\n`, `\r`, `\t` spelled as such;
 * - Unicode format characters (general category Cf: bidi embeddings, overrides and isolates
 *   U+202A–U+202E, U+2066–U+2069, marks U+200E/U+200F/U+061C, zero-width characters, U+FEFF),
 *   line and paragraph separators (U+2028/U+2029) and lone surrogates → `\uHHHH`
 *   (Unicode TR #9 "Unicode Bidirectional Algorithm", https://www.unicode.org/reports/tr9/).
 *
 * JSON output needs none of this (JSON.stringify escapes every C0 control and is exact).
 */

// Everything that can move the cursor, change modes or reorder a line.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
// Printable ASCII: the fast path (almost every string shown is one).
const PLAIN = /^[\x20-\x7e]*$/;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control, format and separator character made visible (`\x1b`, `\n`, `\u202e`). */
export function safeText(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.replace(UNSAFE, visible);
}

/** True when `text` holds a character safeText would escape (for tests and checks). */
export function hasUnsafeText(text: string): boolean {
  if (PLAIN.test(text)) return false;
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return found;
}

/**
 * A copy of `value` with safeText applied to every string inside it (object keys included), for
 * formatters that print many fields of one record (status text, doctor text, plans). Objects
 * and arrays without anything to escape are returned as they are, so the common case allocates nothing.
 */
export function safeDeep<T>(value: T): T {
  return deep(value) as T;
}

function deep(v: unknown): unknown {
  if (typeof v === 'string') return safeText(v);
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      const s = deep(e);
      if (s !== e) {
        out ??= v.slice();
        out[i] = s;
      }
    }
    return out ?? v;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  let out: Record<string, unknown> | undefined;
  for (const [k, e] of Object.entries(v)) {
    const sk = safeText(k);
    const s = deep(e);
    if (s !== e || sk !== k) {
      out ??= { ...(v as Record<string, unknown>) };
      if (sk !== k) delete out[k];
      out[sk] = s;
    }
  }
  return out ?? v;
}
