import { describe, expect, it } from 'vitest';
import { hasUnsafeText, safeDeep, safeText } from '../../src/engine/text/safe-text.js';

describe('safeText', () => {
  it('leaves printable text, symbols and non-Latin letters alone', () => {
    for (const s of ['iqn.2026-01.lab.example:x', '● in-use ✓ ok', 'é 日本 ↑↓', ''])
      expect(safeText(s)).toBe(s);
  });

  it('makes C0, DEL, C1 (one-byte CSI/OSC) and newlines visible', () => {
    expect(safeText('a\x1b]0;pwned\x07b')).toBe('a\\x1b]0;pwned\\x07b');
    expect(safeText('x\x1b[31mred\x1b[0m')).toBe('x\\x1b[31mred\\x1b[0m');
    expect(safeText('l1\nl2\rl3\tl4\x00\x7f')).toBe('l1\\nl2\\rl3\\tl4\\x00\\x7f');
    expect(safeText('\x9b2J\x9d0;t\x9c')).toBe('\\x9b2J\\x9d0;t\\x9c');
  });

  it('makes bidi overrides, isolates, zero-width and line separators visible', () => {
    expect(safeText('evil\u202Etxt.exe')).toBe('evil\\u202etxt.exe');
    expect(safeText('a\u2066b\u2069c\u200Fd\u200Be\uFEFFf\u2028g\u2029')).toBe(
      'a\\u2066b\\u2069c\\u200fd\\u200be\\ufefff\\u2028g\\u2029',
    );
  });

  it('hasUnsafeText agrees with safeText', () => {
    for (const s of ['plain', 'a\x1bb', 'é', 'x\u202E', '\n'])
      expect(hasUnsafeText(s)).toBe(safeText(s) !== s);
  });

  it('safeDeep escapes every string of a record, keys included, and shares what is clean', () => {
    const clean = { n: 1, list: ['a'] };
    const v = { a: ['x', 'y\x1b[2J'], clean, 'k\n': 'v', z: null, t: true };
    const out = safeDeep(v);
    expect(out).toEqual({ a: ['x', 'y\\x1b[2J'], clean, 'k\\n': 'v', z: null, t: true });
    expect(out.clean).toBe(clean);
    expect(v.a[1]).toBe('y\x1b[2J');
    expect(safeDeep(clean)).toBe(clean);
  });
});
