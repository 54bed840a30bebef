/**
 * The small lists a snapshot keeps by the thousand (a LUN's mountpoints and claims, a volume's
 * sessions and pods, a session's reasons) are stored at their exact size. V8 gives an array 17
 * slots on its first push (and `filter` builds its result the same way) and never gives them back:
 * ~120 unused bytes per list, ~1.5 MB at 1,000 sessions × 4 LUNs (bench/README.md). `slice` and
 * `concat` allocate exactly.
 */

/**
 * The one empty list that every empty list field of a snapshot shares (a LUN's holders, partitions,
 * loops; a volume's pods): a separate `[]` each was ~1 MB at 1,000 sessions × 4 LUNs. Frozen, so
 * code that pushes into a snapshot's list fails loudly instead of filling them all; none does (a
 * snapshot is read-only once built, and the engine assigns new lists).
 */
const NONE: readonly never[] = Object.freeze([]);

/** The shared empty list (NONE) as a list of T. */
export function none<T>(): readonly T[] {
  return NONE;
}

/** `list` to keep as it is (an exact-size array such as a directory listing), or NONE when empty. */
export function kept<T>(list: T[]): readonly T[] {
  return list.length === 0 ? none() : list;
}

/** `list` to keep: the same items in an array of exactly their number, or NONE when empty. */
export function trimmed<T>(list: readonly T[]): readonly T[] {
  return list.length === 0 ? none() : list.slice();
}

/** `list` with `item` at its end unless it holds it already: a new exact-size array, or `list`. */
export function withItem<T>(list: readonly T[], item: T): T[] {
  return list.includes(item) ? (list as T[]) : list.concat([item]);
}
