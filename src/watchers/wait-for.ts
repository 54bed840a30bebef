import type { StoreApi } from 'zustand/vanilla';

/**
 * Resolves with the state once `predicate` holds, checking now and on every publication; rejects
 * after `timeoutMs`. Tests, benchmarks and e2e wait on conditions this way, never by sleeping.
 */
export function waitFor<S>(
  store: StoreApi<S>,
  predicate: (state: S) => boolean,
  timeoutMs = 5_000,
): Promise<S> {
  const now = store.getState();
  if (predicate(now)) return Promise.resolve(now);
  return new Promise<S>((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`waitFor: condition not met within ${timeoutMs} ms`));
    }, timeoutMs);
    const unsubscribe = store.subscribe((state) => {
      if (!predicate(state)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(state);
    });
  });
}
