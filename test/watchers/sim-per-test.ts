/**
 * One simulated node and at most one watcher per test, both ended after it: the watcher first, since
 * it still reads the node while it stops. Shared by the watcher tests that drive the simulator.
 */
import { afterEach } from 'vitest';
import type { Watcher } from '../../src/watchers/watcher.js';

export interface PerTestSlot {
  /** The simulator's close, set by the test that opened it. */
  close?: () => Promise<void>;
  /** The watcher the test started. */
  watcher?: Watcher;
}

/** Registers the after-test clean-up (call at module level) and returns the slot a test fills. */
export function simAndWatcherPerTest(): PerTestSlot {
  const slot: PerTestSlot = {};
  afterEach(async () => {
    await slot.watcher?.stop();
    await slot.close?.();
    slot.watcher = undefined;
    slot.close = undefined;
  });
  return slot;
}
