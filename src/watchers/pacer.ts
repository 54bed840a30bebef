/**
 * The watchers' clock for pacing: when the poll ticks, when a burst of uevents has settled, when the
 * store may publish again. One interface so tests drive all of it by hand instead of waiting.
 */
export interface Pacer {
  /** Monotonic ms. */
  now(): number;
  /** Runs `fn` after `ms`; returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
}

/** performance.now and setTimeout; timers are unref'd: the console and commands own the process lifetime. */
export const realPacer: Pacer = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};
