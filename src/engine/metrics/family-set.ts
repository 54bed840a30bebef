/**
 * Families under construction: samples are added by name as a snapshot is walked, and each family's
 * HELP and TYPE come from its one definition (definitions.ts). A discarding set counts what it was
 * given instead: the sessions over `--max-sessions` go through the same builders into one of those,
 * so the dropped count is exact.
 */

import { FAMILIES, type FamilyName } from './definitions.js';
import type { MetricFamily, Sample } from './exposition.js';

export interface FamilySet {
  add(name: FamilyName, labels: Record<string, string>, value: number): void;
  addAll(name: FamilyName, samples: readonly Sample[]): void;
}

export class CollectingSet implements FamilySet {
  private readonly samples = new Map<FamilyName, Sample[]>();

  add(name: FamilyName, labels: Record<string, string>, value: number): void {
    let list = this.samples.get(name);
    if (!list) {
      list = [];
      this.samples.set(name, list);
    }
    list.push({ labels, value });
  }

  addAll(name: FamilyName, samples: readonly Sample[]): void {
    for (const s of samples) this.add(name, s.labels as Record<string, string>, s.value);
  }

  /** Every defined family (those with no sample too: the metric is known, nothing to report). */
  families(only?: (name: FamilyName) => boolean): MetricFamily[] {
    return (Object.keys(FAMILIES) as FamilyName[])
      .filter((n) => !only || only(n))
      .map((name) => ({ name, ...FAMILIES[name], samples: this.samples.get(name) ?? [] }));
  }
}

export class CountingSet implements FamilySet {
  count = 0;
  add(): void {
    this.count++;
  }
  addAll(_name: FamilyName, samples: readonly Sample[]): void {
    this.count += samples.length;
  }
}
