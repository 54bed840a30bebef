/**
 * The watcher's health in the store: which sources feed it (health.sources) and what went wrong
 * (health.errors plus a timeline event). A source dying mid-run belongs in the timeline: the changes
 * it covered now wait for the poll.
 */
import { sourceInactive } from './events.js';
import type { NodeStore } from './store.js';
import type { EventDraft, SourceHealth } from './types.js';

export interface SourceHealthBoard {
  /** Records a source's state; publishes only a change. */
  set(name: string, active: boolean, detail?: string): void;
  has(name: string): boolean;
  /** Every source as last recorded. */
  all(): SourceHealth[];
  /** Records an error in health and puts its event in the timeline. */
  fail(event: EventDraft): void;
}

/** `stopped` says the watcher is stopping: sources going inactive then is no news. */
export function createSourceHealth(store: NodeStore, stopped: () => boolean): SourceHealthBoard {
  const sources = new Map<string, SourceHealth>();
  return {
    set(name, active, detail) {
      const s: SourceHealth = detail === undefined ? { name, active } : { name, active, detail };
      const was = sources.get(name);
      if (was && was.active === s.active && was.detail === s.detail) return;
      sources.set(name, s);
      const list = [...sources.values()];
      store.update((st) => ({ health: { ...st.health, sources: list } }));
      if (was?.active && !active && !stopped()) store.pushEvents([sourceInactive(name, detail)]);
    },
    has: (name) => sources.has(name),
    all: () => [...sources.values()],
    fail(event) {
      store.recordError(event.message);
      store.pushEvents([event]);
    },
  };
}
