/**
 * Runs the poll on a steady cadence: one tick every `intervalMs` from the last one's start. A tick
 * that found a change and waited for its refresh (~0.3–1.5 s at 1,000 sessions) does not push the
 * next one back by that long, which would make a change wait up to interval + refresh to be seen.
 * A quarter interval always separates the end of one tick from the start of the next.
 */
export interface PollTimer {
  /** Schedules the first tick (and each next one after a tick ends). */
  start(): void;
  stop(): void;
}

export function createPollTimer(
  intervalMs: number,
  tick: () => Promise<unknown>,
  onError: (e: unknown) => void,
): PollTimer {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastTickAt: number | undefined;
  function schedule(): void {
    if (stopped) return;
    const now = performance.now();
    lastTickAt ??= now;
    const wait = Math.max(intervalMs / 4, lastTickAt + intervalMs - now);
    timer = setTimeout(() => {
      timer = undefined;
      lastTickAt = performance.now();
      tick().catch(onError).finally(schedule);
    }, wait);
    // The console and `watch` own the process lifetime; the poll never keeps it alive.
    timer.unref();
  }
  return {
    start: schedule,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
