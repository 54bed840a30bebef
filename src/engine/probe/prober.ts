/**
 * The probe's bounds for a whole node: every portal asked is probed in parallel, each within its
 * own 5 s budget (portal-probe.ts), and a portal is never probed more than once per interval — a
 * second ask inside the interval gets the first probe's result (or joins it while it runs). The
 * clock is injected, so tests drive the interval without waiting.
 */
import type { Host } from '../host/host.js';
import type { PortalProbe } from '../model.js';
import { PROBE_BUDGET_MS, probePortal } from './portal-probe.js';

/** Default time between two probes of one portal: the console's and the watcher's slowest cadence. */
const PROBE_INTERVAL_MS = 30_000;

interface ProberOptions {
  host: Host;
  now: () => number;
  /** Never more than one probe per portal per this many ms (default PROBE_INTERVAL_MS). */
  intervalMs?: number;
  /** Per portal (default and most PROBE_BUDGET_MS). */
  budgetMs?: number;
}

export interface Prober {
  /** Probes each portal (deduplicated) unless it was probed within the interval; results in the order asked. */
  probe(portals: readonly string[]): Promise<PortalProbe[]>;
  /** The latest finished probe of a portal, if any. */
  last(portal: string): PortalProbe | undefined;
  /** Every portal's latest finished probe, by portal. */
  results(): PortalProbe[];
}

export function createProber(o: ProberOptions): Prober {
  const interval = o.intervalMs ?? PROBE_INTERVAL_MS;
  const done = new Map<string, { started: number; probe: PortalProbe }>();
  const running = new Map<string, { started: number; promise: Promise<PortalProbe> }>();
  const one = (portal: string): Promise<PortalProbe> => {
    const now = o.now();
    const inFlight = running.get(portal);
    if (inFlight) return inFlight.promise;
    const prev = done.get(portal);
    if (prev && now - prev.started < interval) return Promise.resolve(prev.probe);
    const promise = probePortal(o.host, portal, { now: o.now, budgetMs: o.budgetMs ?? PROBE_BUDGET_MS }).then(
      (probe) => {
        running.delete(portal);
        done.set(portal, { started: now, probe });
        return probe;
      },
    );
    running.set(portal, { started: now, promise });
    return promise;
  };
  return {
    probe: (portals) => Promise.all([...new Set(portals)].filter((p) => p !== '').map(one)),
    last: (portal) => done.get(portal)?.probe,
    results: () => [...done.values()].map((d) => d.probe).sort((a, b) => a.portal.localeCompare(b.portal)),
  };
}
