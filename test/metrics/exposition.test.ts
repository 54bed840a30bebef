/**
 * The text writer against the exposition format (https://github.com/prometheus/docs/blob/main/docs/instrumenting/exposition_formats.md,
 * "Text format details"). Every expected text below is written by hand from that page, not from the code.
 */
import { describe, expect, it } from 'vitest';
import {
  escapeLabelValue,
  type MetricFamily,
  renderExposition,
} from '../../src/engine/metrics/exposition.js';
import { CUT_MARKER, labelValue, MAX_LABEL_BYTES } from '../../src/engine/metrics/label-value.js';

const gauge = (name: string, samples: MetricFamily['samples'], help = 'h'): MetricFamily => ({
  name,
  help,
  type: 'gauge',
  samples,
});

describe('exposition format 0.0.4', () => {
  it('writes HELP, TYPE and samples; label names sorted, families sorted by name', () => {
    const text = renderExposition([
      gauge('b_metric', [{ labels: { z: '1', a: '2' }, value: 3 }], 'the b one'),
      {
        name: 'a_total',
        help: 'the a one',
        type: 'counter',
        samples: [{ labels: {}, value: 7 }],
      },
    ]);
    expect(text).toBe(
      '# HELP a_total the a one\n# TYPE a_total counter\na_total 7\n' +
        '# HELP b_metric the b one\n# TYPE b_metric gauge\nb_metric{a="2",z="1"} 3\n',
    );
  });

  it('escapes backslash, double quote and line feed in label values, and nothing else', () => {
    const text = renderExposition([gauge('m', [{ labels: { l: 'a\\b"c\nd\te\x1b' }, value: 1 }])]);
    expect(text).toBe('# HELP m h\n# TYPE m gauge\nm{l="a\\\\b\\"c\\nd\te\x1b"} 1\n');
  });

  it('escapes backslash and line feed in HELP (a double quote stays)', () => {
    const text = renderExposition([gauge('m', [], 'x\\y\n"z"')]);
    expect(text).toBe('# HELP m x\\\\y\\n"z"\n# TYPE m gauge\n');
  });

  it('spells special values as Go parses them: NaN, +Inf, -Inf; -0 as 0; floats as they are', () => {
    const text = renderExposition([
      gauge('m', [
        { labels: { v: 'a' }, value: Number.NaN },
        { labels: { v: 'b' }, value: Number.POSITIVE_INFINITY },
        { labels: { v: 'c' }, value: Number.NEGATIVE_INFINITY },
        { labels: { v: 'd' }, value: -0 },
        { labels: { v: 'e' }, value: 1796318931.278 },
      ]),
    ]);
    expect(text).toBe(
      '# HELP m h\n# TYPE m gauge\nm{v="a"} NaN\nm{v="b"} +Inf\nm{v="c"} -Inf\nm{v="d"} 0\nm{v="e"} 1796318931.278\n',
    );
  });

  it('orders samples by their labels, so equal input renders byte-identical whatever the order', () => {
    const a = { labels: { p: 'x' }, value: 1 };
    const b = { labels: { p: 'y' }, value: 0 };
    const one = renderExposition([gauge('m', [a, b])]);
    expect(renderExposition([gauge('m', [b, a])])).toBe(one);
    expect(one).toBe('# HELP m h\n# TYPE m gauge\nm{p="x"} 1\nm{p="y"} 0\n');
  });

  it('writes one series once when two samples carry the same labels', () => {
    const text = renderExposition([
      gauge('m', [
        { labels: { p: 'x' }, value: 1 },
        { labels: { p: 'x' }, value: 2 },
      ]),
    ]);
    expect(text.match(/^m\{/gm)).toHaveLength(1);
  });

  it('keeps HELP and TYPE of a family with no samples', () => {
    expect(renderExposition([gauge('m', [])])).toBe('# HELP m h\n# TYPE m gauge\n');
  });
});

describe('label values from the node', () => {
  it('replaces invalid UTF-8 (a lone surrogate in a JS string) with U+FFFD', () => {
    expect(labelValue('a\uD800b')).toBe('a\uFFFDb');
    expect(labelValue('a\uDC00')).toBe('a\uFFFD');
    expect(labelValue('ok \uD83D\uDE00')).toBe('ok \uD83D\uDE00');
    expect(escapeLabelValue('\uD800"')).toBe('\uFFFD\\"');
  });

  it('cuts a value over 1 KiB at a character boundary, marker included in the 1 KiB', () => {
    expect(MAX_LABEL_BYTES).toBe(1024);
    const long = 'é'.repeat(600); // 1,200 bytes
    const cut = labelValue(long);
    expect(cut.endsWith(CUT_MARKER)).toBe(true);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1024);
    expect(Buffer.byteLength(cut)).toBeGreaterThan(1024 - 8);
    expect(cut.slice(0, -CUT_MARKER.length)).toBe('é'.repeat(cut.slice(0, -CUT_MARKER.length).length));
    const exact = 'a'.repeat(1024);
    expect(labelValue(exact)).toBe(exact);
    expect(labelValue(`${exact}b`).endsWith(CUT_MARKER)).toBe(true);
  });
});
