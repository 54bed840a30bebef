import type { Host } from '../host/host.js';
import { decodeOctal } from './mountinfo.js';

const SWAPS_PATH = '/proc/swaps';

/**
 * Parses /proc/swaps (`Filename Type Size Used Priority` after a header line; mm/swapfile.c prints
 * the path with seq_file escaping). A swap partition of an iSCSI disk shows only here, not in mountinfo.
 */
export function parseSwaps(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const m = /^(\S+)\s+\S+\s+\d+\s+\d+\s+-?\d+\s*$/.exec(line);
    if (m) out.push(decodeOctal(m[1]!));
  }
  return out;
}

/** Swap areas (host paths). Absent /proc/swaps (no swap support) reads as none. */
export function readSwaps(host: Host): string[] {
  const text = host.readText(SWAPS_PATH);
  return text === undefined ? [] : parseSwaps(text);
}
