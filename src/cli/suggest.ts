/**
 * "Did you mean …" for a mistyped command or option: the known name closest by edit distance, when
 * it is close enough to be a typo (at most a third of the word, and never more than 3 edits), so an
 * unrelated word gets no misleading suggestion.
 */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const k of known) {
    const d = editDistance(word, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance with adjacent transpositions counted as one edit (`stauts` → `status`). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0]![j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The hint line for an unknown name: the suggestion when there is one, else where to look. */
export function suggestionHint(word: string, known: Iterable<string>, prefix = ''): string {
  const s = closest(word, known);
  return s ? `did you mean ${prefix}${s}? (iscsi-console --help lists them all)` : 'see iscsi-console --help';
}
