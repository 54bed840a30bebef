import { describe, expect, it } from 'vitest';
import { writeJson } from '../../src/engine/json-chunks.js';

/** The chunks writeJson hands out, each decoded alone (so a chunk cut inside a character shows). */
function chunksOf(value: object, end = ''): { text: string; chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  writeJson(value, (c) => chunks.push(Buffer.from(c)), end);
  return { text: chunks.map((c) => c.toString('utf8')).join(''), chunks };
}

describe('writeJson: JSON.stringify by parts', () => {
  // The oracle is the platform's JSON.stringify of the same value, never the code under test.
  const cases: Record<string, object> = {
    'empty object': {},
    'empty array': [],
    'what JSON leaves out or writes as null': {
      a: undefined,
      f: () => 1,
      s: Symbol('x'),
      list: [undefined, () => 1, Symbol('y'), null, 0, -0, Number.NaN, Number.POSITIVE_INFINITY],
      deep: { x: { y: { z: { w: [undefined, { u: undefined, v: 1 }] } } } },
    },
    'toJSON at every level': {
      at: new Date(0),
      list: [new Date(1), { toJSON: (k: string) => `key:${k}` }],
      keyed: { toJSON: (k: string) => ({ k, toJSON: () => 'not called twice' }) },
      own: { nested: { toJSON: () => ({ replaced: true }) } },
    },
    'a toJSON that returns what JSON leaves out': {
      gone: { toJSON: () => undefined },
      kept: 1,
      list: [{ toJSON: () => undefined }, { toJSON: () => () => 1 }],
      deep: { x: { y: { toJSON: () => undefined }, z: 2 } },
    },
    'strings that need escapes, two-byte and astral characters': {
      'quote"key': 'line\nbreak\ttab\u0000nul\u001f',
      arrow: 'dm-0 (mpatha) → sdb',
      astral: '😀 \ud83d lone surrogate \udc00',
      latin1: 'café ×',
    },
    'a null-prototype object and holes': Object.assign(Object.create(null) as object, {
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
      sparse: [1, , 3],
      n: null,
      b: false,
    }),
    'boxed primitives and class instances stay whole': {
      boxed: [Object(1), Object('s'), Object(true)],
      map: new Map([[1, 2]]),
      cls: new (class Point {
        x = 1;
        y = 2;
      })(),
    },
    'integer-like keys come first, as JSON orders them': { b: 1, 2: 'two', a: 3, 1: 'one' },
  };
  for (const [name, value] of Object.entries(cases)) {
    it(name, () => {
      expect(chunksOf(value).text).toBe(JSON.stringify(value));
    });
  }

  it('a large document: many chunks, each whole UTF-8, the same bytes as one JSON.stringify', () => {
    const sessions = Array.from({ length: 3000 }, (_, i) => ({
      sid: i,
      targetIqn: `iqn.2024-01.lab.example:t${i}`,
      reasons: [`dm-${i} (mpath${i}) → sd${i} is mounted at /var/lib/kubelet/pods/${'p'.repeat(40)}`],
      devices: [{ hctl: `${i}:0:0:1`, model: 'VIRTUAL-DISK', holders: [], extra: undefined }],
    }));
    // A single value larger than a chunk (a big mount table line, a long string).
    const doc = { schemaVersion: 2, sessions, big: '→'.repeat(300_000), tail: 'x'.repeat(700_000) };
    const { text, chunks } = chunksOf(doc, '\n');
    expect(chunks.length).toBeGreaterThan(4);
    expect(text).toBe(`${JSON.stringify(doc)}\n`);
    expect(Buffer.concat(chunks).equals(Buffer.from(`${JSON.stringify(doc)}\n`))).toBe(true);
  });

  it('a top-level array', () => {
    const value = [{ a: [1, { b: [2, { c: 3 }] }] }, 'x', 4];
    expect(chunksOf(value).text).toBe(JSON.stringify(value));
  });
});
