/**
 * Runs the poll on a steady cadence: one tick every `intervalMs` from the last one's start. A tick
 * that found a change and waited for its refresh (~0.3–1.5 s at 1,000 sessions) does not push the
 * next one back by that long, which would make a change wait up to interval + refresh to be seen.
 * A quarter interval always separates the end of one tick from the start of the next.
 */
import { type Pacer, realPacer } from './pacer.js';

interface PollTimer {
  /** Schedules the first tick (and each next one after a tick ends). */
  start(): void;
  stop(): void;
}

export function createPollTimer(
  intervalMs: number,
  tick: () => Promise<unknown>,
  onError: (e: unknown) => void,
  pacer: Pacer = realPacer,
): PollTimer {
  let stopped = false;
  let cancel: (() => void) | undefined;
  let lastTickAt: number | undefined;
  function schedule(): void {
    if (stopped) return;
    const now = pacer.now();
    lastTickAt ??= now;
    const wait = Math.max(intervalMs / 4, lastTickAt + intervalMs - now);
    cancel = pacer.after(wait, () => {
      cancel = undefined;
      lastTickAt = pacer.now();
      tick().catch(onError).finally(schedule);
    });
  }
  return {
    start: schedule,
    stop() {
      stopped = true;
      cancel?.();
      cancel = undefined;
    },
  };
}
