/**
 * The small lists a snapshot keeps by the thousand (a LUN's mountpoints and claims, a volume's
 * sessions and pods, a session's reasons) are stored at their exact size. V8 gives an array 17
 * slots on its first push (and `filter` builds its result the same way) and never gives them back:
 * ~120 unused bytes per list, ~1.5 MB at 1,000 sessions × 4 LUNs (bench/README.md). `slice` and
 * `concat` allocate exactly.
 */

/** `list` to keep: the same items, in an array of exactly their number. */
export function trimmed<T>(list: T[]): T[] {
  return list.length === 0 ? list : list.slice();
}

/** `list` with `item` at its end unless it holds it already: a new exact-size array, or `list`. */
export function withItem<T>(list: readonly T[], item: T): T[] {
  return list.includes(item) ? (list as T[]) : list.concat([item]);
}
