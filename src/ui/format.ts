/** Small text helpers for fixed-width terminal cells. */
import { safeText } from '../app/domain.js';

/**
 * Shortens text to `width` by cutting the middle: IQNs differ at both ends
 * (`iqn.2003-01.org.linux-iscsi…:pvc-1234`), so the head and tail both matter.
 */
export function truncateMiddle(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  if (width <= 1) return '…';
  const tail = Math.ceil((width - 1) / 2);
  const head = width - 1 - tail;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/** Characters after which a name may be cut: the parts of IQNs, portals and kubelet dir names. */
const BOUNDARY = /[-:./_@ …]/;

/**
 * Keeps the end of text, cutting its start on a part boundary when one leaves enough to read
 * (`…:metrics-tsdb-lun-1`, not `10.0.0.12:326…ics-tsdb-lun-1`): a kubelet dir name's distinguishing
 * part is its IQN's name and LUN, at the end.
 */
export function truncateStart(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  if (width <= 1) return '…';
  const from = text.length - (width - 1);
  // The first boundary at or after the cut that still leaves half the width of text.
  for (let i = from; i < text.length - Math.floor(width / 2); i++) {
    // An elision already in the text (`-…:`) is not shown twice.
    if (text[i] === '…') return `${text.slice(i)}`;
    if (text[i + 1] === '…') continue;
    if (BOUNDARY.test(text[i - 1] ?? '') || BOUNDARY.test(text[i]!)) return `…${text.slice(i)}`;
  }
  return `…${text.slice(from)}`;
}

/** Cuts the end of text to width, marking the cut. */
export function truncateEnd(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  return width <= 1 ? '…' : `${text.slice(0, width - 1)}…`;
}

/** Pads or cuts to exactly `width` cells; control characters are made visible first (node text). */
export function padCell(
  raw: string,
  width: number,
  align: 'left' | 'right' = 'left',
  middle = false,
): string {
  const text = safeText(raw);
  const cut = middle ? truncateMiddle(text, width) : truncateEnd(text, width);
  return align === 'right' ? cut.padStart(width) : cut.padEnd(width);
}

/** "3s", "2m10s", "1h05m": age of a refresh or event. */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h${String(m % 60).padStart(2, '0')}m`;
}

/** Human size: 1.0G, 512M. */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) return '-';
  const units = ['B', 'K', 'M', 'G', 'T', 'P'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 || i === 0 ? Math.round(v) : v.toFixed(1)}${units[i]}`;
}
