/**
 * What a frame writes when the status line's cursor position ("N of M") goes from row `from` to
 * row `to`: Ink's incremental rendering rewrites a line from its first changed character to its
 * end, so 14 → 15 writes "5 of M", 19 → 20 writes "20 of M". A key's frame is the one that contains
 * this text (bench/README.md "Latency, keys and the async question").
 */
export function positionText(from: number, to: number): string {
  const a = `${from} of `;
  const b = `${to} of `;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return b.slice(i);
}
