/**
 * Fits one column's cells on screen to its width so that two different names never read the
 * same: long CSI IQNs (`iqn.2010-01.com.netapp:…:trident-pvc-<uuid>-<suffix>`) can share 60
 * characters at both ends, and a cut in the middle then shows the same text for different targets.
 */
import { truncateEnd, truncateMiddle, truncateStart } from '../format.js';
import type { Elide } from './table-types.js';

const CUT = '…';

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** One text by the column's elision. */
export function fitCell(text: string, width: number, elide: Elide | undefined): string {
  if (elide === 'start') {
    // `pvc-1 plugins/…/globalmount` (a CSI volume's row): the name leads and is kept.
    const name = text.indexOf(' ');
    return name > 0 && name < width - 1 ? truncateEnd(text, width) : truncateStart(text, width);
  }
  // A name whose common prefix is already elided (`…:metrics-tsdb`) reads best from its start.
  if (elide === 'unique')
    return text.startsWith('…') ? truncateEnd(text, width) : truncateMiddle(text, width);
  if (elide === 'middle') return truncateMiddle(text, width);
  return truncateEnd(text, width);
}

/**
 * `text` cut to `width` around where it differs from the closest other name: the window starts a
 * little before the first differing character, so that character is always shown.
 */
function distinguishingCut(text: string, others: readonly string[], width: number): string {
  if (width < 5) return truncateEnd(text, width);
  let head = 0;
  for (const o of others) head = Math.max(head, commonPrefix(text, o));
  // The difference lies after the shared head; a name that only adds to another differs at its end.
  const diff = Math.min(head, text.length - 1);
  if (diff >= text.length - (width - 1)) return `${CUT}${text.slice(text.length - (width - 1))}`;
  if (diff < width - 1) return truncateEnd(text, width);
  const room = width - 2;
  const start = Math.max(1, Math.min(diff - Math.floor(room / 3), text.length - 1 - room));
  return `${CUT}${text.slice(start, start + room)}${CUT}`;
}

/**
 * The column's cells cut to `width` by its elision, then any two different texts that came out
 * the same are cut again around where they differ. Texts that fit are never touched.
 */
export function fitColumn(texts: readonly string[], width: number, elide: Elide | undefined): string[] {
  const out = texts.map((t) => fitCell(t, width, elide));
  if (elide !== 'unique' && elide !== 'start') return out;
  const sources = new Map<string, Set<string>>();
  texts.forEach((t, i) => {
    let s = sources.get(out[i]!);
    if (!s) {
      s = new Set();
      sources.set(out[i]!, s);
    }
    s.add(t);
  });
  const cutOf = new Map<string, string>();
  for (const group of sources.values()) {
    if (group.size < 2) continue;
    const names = [...group];
    for (const t of names)
      cutOf.set(
        t,
        distinguishingCut(
          t,
          names.filter((o) => o !== t),
          width,
        ),
      );
  }
  return cutOf.size === 0 ? out : texts.map((t, i) => cutOf.get(t) ?? out[i]!);
}
