import { describe, expect, it } from 'vitest';
import { createNodeStore } from '../../src/watchers/store.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { device, session, snapshot } from './build-snapshot.js';
import { manualPacer } from './manual-pacer.js';

describe('createNodeStore', () => {
  it('coalesces a burst of updates into one publication', async () => {
    const store = createNodeStore({ maxHz: 10 });
    let published = 0;
    store.subscribe(() => published++);
    for (let i = 0; i < 50; i++) store.update((s) => ({ busy: s.busy + 1 }));
    expect(store.getState().busy).toBe(0);
    const s = await waitFor(store, (x) => x.busy === 50, 1_000);
    expect(s.busy).toBe(50);
    expect(published).toBe(1);
  });

  it('publishes at most maxHz times per second', () => {
    // The pace runs on a hand-driven clock: each update is published when its timer is due.
    const pacer = manualPacer();
    const store = createNodeStore({ maxHz: 10, pacer });
    const times: number[] = [];
    store.subscribe(() => times.push(pacer.now()));
    for (let i = 1; i <= 4; i++) {
      pacer.advance(1);
      store.update(() => ({ busy: i }));
      expect(pacer.pending()).toBe(1);
      expect(pacer.next()).toBe(true);
      expect(store.getState().busy).toBe(i);
    }
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(100);
  });

  it('keeps the previous Session object when a session did not change', () => {
    const store = createNodeStore();
    store.applySnapshot(snapshot({ sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb')]), session(2)] }));
    store.flush();
    const before = store.getState().snapshot!;
    store.applySnapshot(
      snapshot({ sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb')]), session(2, 'FAILED')] }),
    );
    store.flush();
    const after = store.getState().snapshot!;
    expect(after.sessions[0]).toBe(before.sessions[0]);
    expect(after.sessions[1]).not.toBe(before.sessions[1]);
    expect(after.sessions[1]!.state).toBe('FAILED');
    // Nothing changed at all: even the array is the same reference.
    store.applySnapshot(
      snapshot({ sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb')]), session(2, 'FAILED')] }),
    );
    store.flush();
    expect(store.getState().snapshot!.sessions).toBe(after.sessions);
  });

  it('numbers events monotonically and caps the ring buffer', () => {
    const store = createNodeStore({ eventCap: 5, now: () => 42 });
    for (let i = 0; i < 8; i++)
      store.pushEvents([
        { kind: 'watcher', severity: 'info', subject: 's', transition: 't', message: `m${i}` },
      ]);
    store.flush();
    const ev = store.getState().events;
    expect(ev.map((e) => e.id)).toEqual([4, 5, 6, 7, 8]);
    expect(ev[0]).toMatchObject({ at: 42, message: 'm3' });
  });

  it('records diff events when a snapshot comes in, and the busy counter balances', () => {
    const store = createNodeStore();
    store.applySnapshot(snapshot({ sessions: [session(7)] }));
    const release = store.beginBusy();
    const events = store.applySnapshot(snapshot({ sessions: [session(7, 'FAILED')] }));
    release();
    release();
    store.flush();
    expect(events.map((e) => e.message)).toEqual([expect.stringMatching(/session 7 LOGGED_IN→FAILED/)]);
    expect(store.getState().diff?.sessionsChanged).toHaveLength(1);
    expect(store.getState().busy).toBe(0);
  });
});
