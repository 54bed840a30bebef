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

    // Time passes and the kernel gives up (FREE): the finding changes states, not its first sighting;
    // it is not a new outage but its own, louder event: the kernel fails I/O now.
    host.sim.advance(120_000);
    await w.poll();
    await waitFor(w.store, (st) => st.snapshot?.outages[0]?.sessionStates.FREE === onPortal, 5_000);
    expect(w.store.getState().snapshot!.outages[0]!.firstSeenAt).toBe(seen);
    expect(portalEvents()).toHaveLength(2);
    expect(portalEvents()[1]).toMatchObject({
      severity: 'error',
      subject: `portal ${PORTAL}`,
      message: `portal ${PORTAL}: recovery_tmo expired on all ${onPortal} of ${onPortal} session${onPortal === 1 ? '' : 's'}: the kernel fails I/O, pods get EIO`,
    });

    host.sim.portalUp(PORTAL);
    await w.poll();
    await waitFor(w.store, (st) => st.events.filter((e) => e.kind === 'portal').length === 3, 5_000);
    const up = portalEvents()[2]!;
    // The watcher saw it go down: "down …, since HH:MM UTC", the time of that first read.
    expect(up).toMatchObject({ kind: 'portal', severity: 'info', subject: `portal ${PORTAL}` });
    expect(up.message).toBe(
      `portal ${PORTAL} up again: ${onPortal} session${onPortal === 1 ? '' : 's'} LOGGED_IN (down 2 min, since ${seen.slice(11, 16)} UTC)`,
    );
    expect(w.store.getState().snapshot!.outages).toEqual([]);
  });
});
