/**
 * serve's /healthz rule and its counters, on the watcher's real store fed a real snapshot (the
 * outage scenario) and the watcher's own events; the clock is the test's.
 */
import { describe, expect, it } from 'vitest';
import { metricsHealth } from '../../src/app/metrics-server.js';
import { parseListen } from '../../src/cli/commands/serve.js';
import { main } from '../../src/cli/main.js';
import { refreshFailed, refreshWorksAgain, sessionStateEvent } from '../../src/watchers/events.js';
import { countWatcherEvents } from '../../src/watchers/metrics-counters.js';
import { createNodeStore } from '../../src/watchers/store.js';
import { captureOutput } from '../helpers/capture-output.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';

describe('/healthz', () => {
  const snap = simSnapshot('outage');

  function setup() {
    let now = 1_000_000;
    const store = createNodeStore({ now: () => now });
    const counters = countWatcherEvents(store, 10);
    const o = { store, counters, version: 't', maxSessions: 10, refreshMs: 2000, now: () => now };
    return { store, counters, o, advance: (ms: number) => (now += ms), at: () => now };
  }

  it('is 503 before the first read, 200 after it, 503 when the last read is older than three intervals', () => {
    const { store, o, advance, at } = setup();
    expect(metricsHealth(o)).toEqual({ ok: false, reason: 'no read of the node yet' });
    store.applySnapshot(snap());
    store.update((st) => ({ health: { ...st.health, lastPollAt: at() } }));
    store.flush();
    expect(metricsHealth(o)).toEqual({ ok: true, reason: 'ok' });
    advance(6000);
    expect(metricsHealth(o).ok).toBe(true);
    advance(1);
    expect(metricsHealth(o)).toEqual({
      ok: false,
      reason: 'last read 6 s ago, more than three intervals (2 s)',
    });
  });

  it('is 503 with the reason while the last read failed, 200 once it works again; reads failed are counted', () => {
    const { store, counters, o, at } = setup();
    store.applySnapshot(snap());
    store.update((st) => ({ health: { ...st.health, lastPollAt: at() } }));
    store.pushEvents([refreshFailed('EIO reading /sys', 'poll')]);
    store.flush();
    expect(metricsHealth(o)).toEqual({
      ok: false,
      reason: 'last read failed: refresh failed: EIO reading /sys (after poll)',
    });
    expect(counters.readErrors()).toEqual({ read: 1, poll: 0, 'file-watch': 0 });
    store.pushEvents([refreshWorksAgain()]);
    store.flush();
    expect(metricsHealth(o).ok).toBe(true);
  });

  it('counts session state changes per session and events per kind and severity', () => {
    const { store, counters } = setup();
    store.applySnapshot(snap());
    const s = snap().sessions[0]!;
    store.pushEvents([
      sessionStateEvent(s, 'LOGGED_IN', 'FAILED'),
      sessionStateEvent(s, 'FAILED', 'LOGGED_IN'),
    ]);
    store.flush();
    expect(counters.stateChanges()).toEqual([
      { target: s.targetIqn, portal: s.portal, iface: s.iface, count: 2 },
    ]);
    const session = counters.events().filter((e) => e.kind === 'session' && e.count > 0);
    expect(session).toEqual([
      { kind: 'session', severity: 'info', count: 1 },
      { kind: 'session', severity: 'warn', count: 1 },
    ]);
  });
});

describe('serve options', () => {
  it('parses ADDR:PORT, [v6]:PORT and :PORT; refuses the rest', () => {
    expect(parseListen('127.0.0.1:9853')).toEqual({ host: '127.0.0.1', port: 9853 });
    expect(parseListen('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(parseListen(':9853')).toEqual({ host: '', port: 9853 });
    expect(() => parseListen('9853')).toThrow(/--listen takes ADDR:PORT/);
    expect(() => parseListen('a:70000')).toThrow(/--listen/);
  });

  it('refuses --write (exit 2) and changes nothing', async () => {
    const c = captureOutput();
    expect(await main(['serve', '--write', '--demo', 'healthy'], c)).toBe(2);
    expect(c.err).toContain('serve is read-only');
  });
});
