/**
 * Counted nouns, one home for every count a person reads (`1 multipath map`, `2 sessions`,
 * `1 watcher error`): the console, `status`, `doctor`, `watch`, node-problem-detector lines.
 */

/** `n word` with the plural when n ≠ 1: `1 session`, `0 sessions`; `many` for an irregular plural. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
