/**
 * A Pacer (src/watchers/pacer.ts) that moves only when the test says: poll ticks, settle delays
 * and store publications fire from `advance`, in time order, with no real waiting.
 */
import type { Pacer } from '../../src/watchers/pacer.js';

export interface ManualPacer extends Pacer {
  /** Timers set and not yet fired or cancelled. */
  pending(): number;
  /** Moves time forward by `ms`, firing the timers that fall due (and those they set) in order. */
  advance(ms: number): void;
  /** Moves time to the next timer and fires it; false when none is pending. */
  next(): boolean;
}

export function manualPacer(start = 1_000): ManualPacer {
  let now = start;
  let seq = 0;
  const timers: { at: number; seq: number; fn: () => void }[] = [];
  const take = (until: number) => {
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const t = timers[0];
    if (!t || t.at > until) return false;
    timers.shift();
    now = Math.max(now, t.at);
    t.fn();
    return true;
  };
  return {
    now: () => now,
    after(ms, fn) {
      const t = { at: now + Math.max(0, ms), seq: seq++, fn };
      timers.push(t);
      return () => {
        const i = timers.indexOf(t);
        if (i >= 0) timers.splice(i, 1);
      };
    },
    pending: () => timers.length,
    advance(ms) {
      const end = now + ms;
      while (take(end));
      now = end;
    },
    next: () => take(Number.POSITIVE_INFINITY),
  };
}
