/**
 * Single-flight refreshes. Every source (poll tick, uevent, file event, applied step) asks for a
 * refresh; at most one runs at a time and at most one more is queued behind it, so a burst of 40
 * uevents from one login costs two snapshots, and two refreshes never diff against the same
 * predecessor (which would report one change twice).
 */
import { type Pacer, realPacer } from './pacer.js';

export interface Refresher {
  /** Resolves when a refresh that started after this call has finished. */
  request(reason: string): Promise<void>;
  /** Requests a refresh after `settleMs`, coalescing bursts (uevents, kubelet writing a dir). */
  soon(reason: string): void;
  /** Resolves when nothing is running or queued. */
  idle(): Promise<void>;
  /** Cancels the settle timer; a running refresh finishes. */
  cancel(): void;
}

export function createRefresher(
  run: (reason: string) => Promise<void>,
  settleMs: number,
  pacer: Pacer = realPacer,
): Refresher {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const queuedReasons: string[] = [];
  let settle: (() => void) | undefined;
  const settleReasons: string[] = [];

  function start(reason: string): Promise<void> {
    const p = run(reason).finally(() => {
      if (running === p) running = undefined;
    });
    running = p;
    return p;
  }

  function request(reason: string): Promise<void> {
    if (!running) return start(reason);
    queuedReasons.push(reason);
    if (!queued) {
      const q = running.then(() => {
        queued = undefined;
        const why = [...new Set(queuedReasons.splice(0))].join(', ');
        return start(why);
      });
      queued = q;
    }
    return queued;
  }

  return {
    request,
    soon(reason) {
      settleReasons.push(reason);
      if (settle) return;
      settle = pacer.after(settleMs, () => {
        settle = undefined;
        void request([...new Set(settleReasons.splice(0))].join(', '));
      });
    },
    async idle() {
      while (running || queued) await (queued ?? running);
    },
    cancel() {
      settle?.();
      settle = undefined;
    },
  };
}
