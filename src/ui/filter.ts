/**
 * The `/` filter language, shared by every list view (k9s `/`, htop `\`):
 *   - words match anywhere in the row (case-insensitive); `a|b` matches either;
 *   - `field=value` matches one column (`state=FAILED`, `portal=10.0.0.5`), `field!=value` excludes;
 *   - a leading `!` inverts the whole filter (k9s `/!`).
 * All terms must match. Unknown fields never match, so a typo empties the list instead of
 * silently showing everything.
 */

export interface Filterable {
  /** Column name (lower case) → value. */
  fields: Record<string, string>;
}

type Term =
  | { kind: 'text'; alternatives: string[] }
  | { kind: 'field'; field: string; value: string; negate: boolean };

export interface ParsedFilter {
  invert: boolean;
  terms: Term[];
}

export function parseFilter(text: string): ParsedFilter {
  let t = text.trim();
  let invert = false;
  if (t.startsWith('!')) {
    invert = true;
    t = t.slice(1).trim();
  }
  const terms: Term[] = [];
  for (const word of t.split(/\s+/).filter(Boolean)) {
    const m = /^([a-z][a-z0-9_-]*)(!?=)(.*)$/i.exec(word);
    if (m) {
      terms.push({
        kind: 'field',
        field: m[1]!.toLowerCase(),
        value: m[3]!.toLowerCase(),
        negate: m[2] === '!=',
      });
    } else {
      terms.push({ kind: 'text', alternatives: word.toLowerCase().split('|').filter(Boolean) });
    }
  }
  return { invert, terms };
}

function termMatches(term: Term, row: Filterable, haystack: string): boolean {
  if (term.kind === 'text') return term.alternatives.some((a) => haystack.includes(a));
  const v = row.fields[term.field];
  if (v === undefined) return term.negate;
  const hit = v.toLowerCase().includes(term.value);
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

/** Builds a predicate for rows; an empty filter keeps everything. */
export function compileFilter<T extends Filterable>(text: string): (row: T) => boolean {
  const f = parseFilter(text);
  if (f.terms.length === 0) return () => true;
  return (row) => {
    const haystack = haystackOf(row);
    const all = f.terms.every((term) => termMatches(term, row, haystack));
    return f.invert ? !all : all;
  };
}
