/**
 * The `/` filter language, one parser for the console's list views (k9s `/`, htop `\`) and the
 * CLI's `status --filter`:
 *   - words match anywhere in the row (case-insensitive); `a|b` matches either;
 *   - `field=value` matches one column (`state=FAILED`, `portal=10.0.0.5`), `field=a|b` either
 *     value, `field!=value` (and `field!=a|b`) excludes; a number matches a number field exactly
 *     (`sid=1` is session 1, not 10), other values anywhere in the field; `field=` an empty field;
 *   - a leading `!` inverts the whole filter (k9s `/!`).
 * All terms must match. A field the list does not have is an error ("unknown field foo; fields:
 * …", `filterError`), never a silently empty list. Which fields a list has is its owner's: the
 * console's views (src/ui/filter.ts), a session's (`sessionFilterFields`, session-fields.ts).
 */

export interface Filterable {
  /** Column name (lower case) → value. */
  fields: Record<string, string>;
}

type Term =
  | { kind: 'text'; alternatives: string[] }
  | { kind: 'field'; field: string; alternatives: string[]; negate: boolean };

interface ParsedFilter {
  invert: boolean;
  terms: Term[];
}

const FIELD_TERM = /^([a-z][a-z0-9_-]*)(!?=)(.*)$/i;

function parseFilter(text: string): ParsedFilter {
  let t = text.trim();
  let invert = false;
  if (t.startsWith('!')) {
    invert = true;
    t = t.slice(1).trim();
  }
  const terms: Term[] = [];
  for (const word of t.split(/\s+/).filter(Boolean)) {
    const m = FIELD_TERM.exec(word);
    if (m) {
      terms.push({
        kind: 'field',
        field: m[1]!.toLowerCase(),
        alternatives: m[3]!.toLowerCase().split('|'),
        negate: m[2] === '!=',
      });
    } else {
      terms.push({ kind: 'text', alternatives: word.toLowerCase().split('|').filter(Boolean) });
    }
  }
  return { invert, terms };
}

/**
 * What is wrong with a filter for a view, or undefined: `unknown field foo; fields: sid, target, …`.
 * A view with no field list (or none given) accepts any field.
 */
export function filterError(text: string, fields: readonly string[]): string | undefined {
  if (fields.length === 0) return undefined;
  const unknown = parseFilter(text)
    .terms.filter((t) => t.kind === 'field' && !fields.includes(t.field))
    .map((t) => (t as { field: string }).field);
  if (unknown.length === 0) return undefined;
  const names = [...new Set(unknown)];
  return `unknown field${names.length > 1 ? 's' : ''} ${names.join(', ')}; fields: ${fields.join(', ')}`;
}

const NUMBER = /^\d+$/;

function valueMatches(value: string, alt: string): boolean {
  if (alt === '') return value === '';
  // `sid=1` means session 1: numbers against a number compare whole.
  if (NUMBER.test(alt) && NUMBER.test(value)) return value === alt;
  return value.includes(alt);
}

function termMatches(term: Term, row: Filterable, haystack: string): boolean {
  if (term.kind === 'text') return term.alternatives.some((a) => haystack.includes(a));
  const v = row.fields[term.field];
  if (v === undefined) return term.negate;
  const lower = v.toLowerCase();
  const hit = term.alternatives.some((a) => valueMatches(lower, a));
  return term.negate ? !hit : hit;
}

const haystacks = new WeakMap<Filterable, string>();

/** All of a row's fields in lower case, built once per row object (each typed key re-filters every row). */
function haystackOf(row: Filterable): string {
  let h = haystacks.get(row);
  if (h === undefined) {
    h = Object.values(row.fields).join(' ').toLowerCase();
    haystacks.set(row, h);
  }
  return h;
}

/**
 * Builds a predicate for rows; an empty filter keeps everything. A field a row lacks never matches
 * `field=…` (check `filterError` first to tell the admin why).
 */
export function compileFilter<T extends Filterable>(text: string): (row: T) => boolean {
  const f = parseFilter(text);
  if (f.terms.length === 0) return () => true;
  return (row) => {
    const haystack = haystackOf(row);
    const all = f.terms.every((term) => termMatches(term, row, haystack));
    return f.invert ? !all : all;
  };
}

/**
 * Completions of the filter's last word as a field name (`hea` → `health=`), for the palette and
 * the filter prompt; the words before it are kept. Empty when the last word is not a field prefix
 * or already has its `=`.
 */
export function completeFilterField(text: string, fields: readonly string[]): string[] {
  const m = /(^|\s)(!?)([a-z][a-z0-9_-]*)$/i.exec(text);
  if (!m) return [];
  const word = m[3]!.toLowerCase();
  const head = text.slice(0, text.length - m[3]!.length);
  return fields.filter((f) => f.startsWith(word)).map((f) => `${head}${f}=`);
}
