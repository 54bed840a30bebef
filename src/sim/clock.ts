/**
 * The simulation's clock. `manual`: time moves only through `advance(ms)` (tests, deterministic
 * recovery timers). `real`: timers run on the wall clock, unref'd so they never keep a CLI alive.
 */
export interface Clock {
  readonly mode: 'real' | 'manual';
  now(): number;
  /** Runs `fn` after `ms` of simulated time; returns a cancel function. */
  setTimer(ms: number, fn: () => void): () => void;
  /** Resolves after `ms` (a slow or hanging command); rejects early through the signal. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Manual clock only: moves time forward, firing due timers in order. */
  advance(ms: number): void;
  /**
   * Manual clock only: resolves once some `sleep` is pending (a slow or hung command waits for the
   * clock to move), so a test advances time when, and only when, something waits on it.
   */
  sleeping(): Promise<void>;
  /** Cancels every pending timer (close). */
  dispose(): void;
}

/** The fixed start of a manual clock: reproducible timestamps in tests and journals. */
const MANUAL_EPOCH = Date.UTC(2026, 0, 1, 0, 0, 0);

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export function createClock(mode: 'real' | 'manual'): Clock {
  return mode === 'manual' ? manualClock() : realClock();
}

function realClock(): Clock {
  const timers = new Set<NodeJS.Timeout>();
  return {
    mode: 'real',
    now: () => Date.now(),
    setTimer(ms, fn) {
      const t = setTimeout(
        () => {
          timers.delete(t);
          fn();
        },
        Math.min(ms, 2 ** 31 - 1),
      );
      t.unref();
      timers.add(t);
      return () => {
        clearTimeout(t);
        timers.delete(t);
      };
    },
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        const cancel = this.setTimer(ms, resolve);
        signal?.addEventListener('abort', () => {
          cancel();
          reject(signal.reason);
        });
      });
    },
    advance() {
      throw new Error('advance() needs the manual clock');
    },
    sleeping() {
      return Promise.reject(new Error('sleeping() needs the manual clock'));
    },
    dispose() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

function manualClock(): Clock {
  let now = MANUAL_EPOCH;
  let seq = 0;
  let pending: Pending[] = [];
  let sleepers = 0;
  let waiters: (() => void)[] = [];
  const clock: Clock = {
    mode: 'manual',
    now: () => now,
    setTimer(ms, fn) {
      const p = { at: now + Math.max(0, ms), seq: seq++, fn };
      pending.push(p);
      return () => {
        pending = pending.filter((x) => x !== p);
      };
    },
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        let settled = false;
        const settle = () => {
          if (settled) return false;
          settled = true;
          sleepers--;
          return true;
        };
        sleepers++;
        for (const wake of waiters.splice(0)) wake();
        const cancel = clock.setTimer(ms, () => settle() && resolve());
        signal?.addEventListener('abort', () => {
          cancel();
          if (settle()) reject(signal.reason);
        });
      });
    },
    sleeping() {
      return sleepers > 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
        const next = pending[0];
        if (!next || next.at > end) break;
        pending.shift();
        now = next.at;
        next.fn();
      }
      now = end;
    },
    dispose() {
      pending = [];
      waiters = [];
    },
  };
  return clock;
}
