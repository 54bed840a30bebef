/**
 * The known values of each state-set family: every one is exported, 0 or 1, so a query for a state
 * finds a series whether or not any session is in it (https://github.com/prometheus/docs/blob/main/docs/practices/instrumentation.md
 * "Avoid missing metrics"; node_exporter's nvmesubsystem collector and Longhorn do the same).
 * A value outside the list (a kernel this list does not know, or a hostile tree) is exported as
 * `other`, so node-sourced text cannot grow a family.
 */
import type { Health, Verdict } from '../model.js';

/** Kernel session states: iscsi_session_state_names in drivers/scsi/scsi_transport_iscsi.c (torvalds/linux). */
export const SESSION_STATES = ['LOGGED_IN', 'FAILED', 'FREE'] as const;

/**
 * SCSI device states: sdev_states in drivers/scsi/scsi_sysfs.c (torvalds/linux). Exported as
 * `running` for every device plus its own state when it is not running (device-families.ts says why).
 */
export const DEVICE_STATES = [
  'created',
  'running',
  'cancel',
  'deleted',
  'quiesce',
  'offline',
  'transport-offline',
  'blocked',
  'created-blocked',
] as const;

// Records keyed by the engine's unions: the compiler rejects a verdict or health missing here.
const VERDICT_SET: Record<Verdict, true> = {
  'in-use': true,
  foreign: true,
  orphaned: true,
  claimed: true,
  outage: true,
  stale: true,
};
const HEALTH_SET: Record<Health, true> = { ok: true, degraded: true, failed: true };

export const VERDICTS = Object.keys(VERDICT_SET) as Verdict[];
export const HEALTHS = Object.keys(HEALTH_SET) as Health[];

const OTHER_STATE = 'other';

/** The value as exported: itself when known, else `other`. */
export function knownOr(value: string | undefined, known: readonly string[]): string {
  return value !== undefined && known.includes(value) ? value : OTHER_STATE;
}

/** One 0/1 sample per known state (plus `other` when the value is unknown). */
export function stateSet(
  labels: Readonly<Record<string, string>>,
  label: string,
  value: string | undefined,
  known: readonly string[],
): { labels: Record<string, string>; value: number }[] {
  const current = knownOr(value, known);
  const out = known.map((k) => ({ labels: { ...labels, [label]: k }, value: k === current ? 1 : 0 }));
  if (current === OTHER_STATE) out.push({ labels: { ...labels, [label]: OTHER_STATE }, value: 1 });
  return out;
}
