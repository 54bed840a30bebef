/**
 * A clock that only moves when slept on, for the `now`/`sleep` options of apply, iscsiadm retries and
 * the target locks: backoffs, waits, lock timeouts and lock ages without real waiting.
 */
export interface FakeTime {
  /** `t`: the time now (ms); `slept`: total ms slept; `sleeps`: each sleep, in order. */
  c: { t: number; slept: number; sleeps: number[] };
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export function fakeTime(start = Date.now()): FakeTime {
  const c = { t: start, slept: 0, sleeps: [] as number[] };
  return {
    c,
    now: () => c.t,
    sleep: async (ms: number) => {
      c.t += ms;
      c.slept += ms;
      c.sleeps.push(ms);
    },
  };
}
