/**
 * `watch` events when a portal goes down and comes back (simulator, manual clock, polls driven by
 * the test): one portal-down event worded as the snapshot's finding, one portal-up event, and the
 * outage's first sighting kept across refreshes (the kernel keeps no failure time).
 */
import { describe, expect, it } from 'vitest';
import { openSimHost } from '../../src/sim/index.js';
import type { NodeEvent } from '../../src/watchers/types.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { startWatcher } from '../../src/watchers/watcher.js';
import { simAndWatcherPerTest } from './sim-per-test.js';

const slot = simAndWatcherPerTest();
const PORTAL = '10.0.0.10:3260';

describe('portal events', () => {
  it('portal down → one warn event with the finding; back → one info event; the first sighting is kept', async () => {
    const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
    slot.close = close;
    const w = startWatcher({ host, kubeletRoot: '/var/lib/kubelet', autoPoll: false, udev: false });
    slot.watcher = w;
    await w.ready;
    const onPortal = w.store.getState().snapshot!.sessions.filter((s) => s.portal === PORTAL).length;
    expect(onPortal).toBeGreaterThan(0);
    const portalEvents = (): NodeEvent[] => {
      w.store.flush();
      return w.store.getState().events.filter((e) => e.kind === 'portal');
    };

    host.sim.portalDown(PORTAL);
    await w.poll();
    await waitFor(w.store, (st) => st.events.some((e) => e.kind === 'portal'), 5_000);
    const [down] = portalEvents();
    const seen = w.store.getState().snapshot!.outages[0]!.firstSeenAt;
    expect(down).toMatchObject({
      kind: 'portal',
      severity: 'warn',
      subject: `portal ${PORTAL}`,
      message: `portal ${PORTAL} down: ${onPortal} session${onPortal === 1 ? '' : 's'} FAILED`,
    });

    // Time passes and the kernel gives up (FREE): the finding changes states, not its first sighting,
    // and it is not reported as a new outage.
    host.sim.advance(120_000);
    await w.poll();
    await waitFor(w.store, (st) => st.snapshot?.outages[0]?.sessionStates.FREE === onPortal, 5_000);
    expect(w.store.getState().snapshot!.outages[0]!.firstSeenAt).toBe(seen);
    expect(portalEvents()).toHaveLength(1);

    host.sim.portalUp(PORTAL);
    await w.poll();
    await waitFor(w.store, (st) => st.events.filter((e) => e.kind === 'portal').length === 2, 5_000);
    const up = portalEvents()[1]!;
    expect(up).toMatchObject({
      kind: 'portal',
      severity: 'info',
      subject: `portal ${PORTAL}`,
      message: `portal ${PORTAL} up again: ${onPortal} session${onPortal === 1 ? '' : 's'} LOGGED_IN (down since ${seen})`,
    });
    expect(w.store.getState().snapshot!.outages).toEqual([]);
  });
});
