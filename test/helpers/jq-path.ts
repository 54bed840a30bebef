/** A small jq for the paths `statusParts` writes (`.a.b[3]`, `.m["k"]["p"]`): the value at `path` in `doc`. */
export function jqPath(doc: unknown, path: string): unknown {
  const keys = [...path.matchAll(/\.(\w+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)].map(
    (m) => m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]!) as string)),
  );
  return keys.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], doc);
}
