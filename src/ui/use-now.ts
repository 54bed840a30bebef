import { useEffect, useState } from 'react';

/**
 * The host clock, re-read every `everyMs` while `active` (a countdown on screen), so the frame moves
 * with time; when inactive no timer runs and the value is the clock at the last render.
 */
export function useNow(clock: () => number, active: boolean, everyMs = 1000): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setTick((n) => n + 1), everyMs);
    t.unref?.();
    return () => clearInterval(t);
  }, [active, everyMs]);
  return clock();
}
