/**
 * The Prometheus text exposition format, version 0.0.4 (https://github.com/prometheus/docs/blob/main/docs/instrumenting/exposition_formats.md,
 * "Text format details"): per family one `# HELP` and
 * one `# TYPE` line, then its samples `name{label="value",...} value`. Label values escape `\`,
 * `"` and newline and nothing else; HELP text escapes `\` and newline. No timestamps (node_exporter's
 * textfile collector refuses them, and https://github.com/prometheus/docs/blob/main/docs/instrumenting/writing_exporters.md
 * says an exporter should not set them).
 *
 * Output is sorted (families by name, samples by their rendered labels), so two renders of the same
 * data are byte-identical: diffs, tests and textfile rewrites stay stable.
 */
import { BugError } from '../errors.js';
import { labelValue } from './label-value.js';

export type MetricType = 'gauge' | 'counter';

export interface Sample {
  /** Label name → value. Names are this module's constants; values are node-sourced and escaped here. */
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

/** The Content-Type a scrape of this format carries. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const NEEDS_ESCAPE = /[\\"\n]/;

/** `\` → `\\`, `"` → `\"`, newline → `\n` (the format's three escapes), after labelValue's clean-up. */
export function escapeLabelValue(raw: string): string {
  const v = labelValue(raw);
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

/** HELP text: `\` → `\\`, newline → `\n`. */
function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}

/** A sample value as the format spells it: Go's ParseFloat reads it; `NaN`, `+Inf`, `-Inf` for the specials. */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return Object.is(v, -0) ? '0' : String(v);
}

/**
 * Per render: label names in order and escaped values, memoised (a target name stands in ~20
 * series; a 1,000 × 4 node renders ~24,000 series, bench/README.md "serve").
 */
class LabelCache {
  private readonly orders = new Map<string, string[]>();
  private readonly values = new Map<string, string>();

  text(labels: Readonly<Record<string, string>>): string {
    const keys = Object.keys(labels);
    if (keys.length === 0) return '';
    const id = keys.join(',');
    let names = this.orders.get(id);
    if (!names) {
      names = [...keys].sort();
      this.orders.set(id, names);
    }
    let out = '{';
    for (let i = 0; i < names.length; i++) {
      const raw = labels[names[i]!]!;
      let v = this.values.get(raw);
      if (v === undefined) {
        v = escapeLabelValue(raw);
        this.values.set(raw, v);
      }
      out += `${i === 0 ? '' : ','}${names[i]}="${v}"`;
    }
    return `${out}}`;
  }
}

/**
 * Renders families as the text format. A family with no samples keeps its HELP and TYPE (the
 * metric is known, nothing to report); two families of one name are a bug of the caller.
 */
export function renderExposition(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  const sorted = [...families].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i]!.name === sorted[i - 1]!.name) throw new BugError(`metric family ${sorted[i]!.name} twice`);
  const cache = new LabelCache();
  for (const f of sorted) out.push(renderFamily(f, cache));
  return out.join('');
}

/** Each family's text, by name, sharing one label cache (serve keeps them per snapshot). */
export function renderEach(families: readonly MetricFamily[]): Map<string, string> {
  const cache = new LabelCache();
  return new Map(families.map((f) => [f.name, renderFamily(f, cache)]));
}

/** One family's lines (`cache`: share one across the families of a render) (HELP, TYPE, samples sorted by labels), each ending in a newline. */
function renderFamily(f: MetricFamily, cache = new LabelCache()): string {
  const out = [`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`];
  const lines = f.samples.map((s) => [cache.text(s.labels), formatValue(s.value)] as const);
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let last: string | undefined;
  for (const [labels, value] of lines) {
    // One series once: duplicates (two sessions whose labels clean up alike) would fail a scrape.
    if (labels === last) continue;
    last = labels;
    out.push(`${f.name}${labels} ${value}`);
  }
  return `${out.join('\n')}\n`;
}
