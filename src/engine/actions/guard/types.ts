/**
 * The guard's shape: an invariant is a pure check of one resolved step effect against the fresh
 * snapshot read right before the step (and the Host, for paths), with the plan's consent facts.
 */
import type { Host } from '../../host/host.js';
import type { Snapshot } from '../../model.js';
import type { ResolvedEffect } from '../types.js';

/** What this apply's own steps created (by fingerprint), recorded as each step ran. */
export interface Created {
  sessions: Set<string>;
  records: Set<string>;
  ifaces: Set<string>;
}

export interface GuardInput {
  s: Snapshot;
  host: Host;
  kubeletRoot: string;
  write: boolean;
  dryRun: boolean;
  /** Objects the admin's override act names (consent.ts overrideObjects): per object, never plan-wide. */
  overrides: ReadonlySet<string>;
  /** Sessions and records the plan named when the admin consented (its steps' effects, `before`). */
  named: ReadonlySet<string>;
  created: Created;
}

/** A refusal of one invariant: what it found, about which object. */
interface Breach {
  object: string;
  reason: string;
  /** The admin's override for exactly `object` lifts it (guardEffect decides, never the invariant). */
  overridable?: boolean;
}

export interface Invariant {
  id: string;
  /** The rule in plain words (README's Safety section lists these). */
  rule: string;
  check(e: ResolvedEffect, g: GuardInput): Breach | undefined;
}
