/**
 * How the guard names what an effect acts on, in verdicts, errors and the admin's override (which
 * lifts a refusal for exactly one object). types.ts StepEffect says how each object is keyed.
 */
import type { ResolvedEffect, StepEffect } from '../types.js';

/**
 * The one object an effect names: its session, record, device, map, loop device, portal or iface,
 * else the path it touches. A device's sysfs write names the device, not the attribute's path.
 */
export function effectObject(e: ResolvedEffect): string {
  if ('session' in e) return e.session;
  if ('record' in e) return e.record;
  if ('device' in e) return e.device;
  if ('map' in e) return e.map;
  if ('loop' in e) return e.loop;
  if ('portal' in e) return e.portal;
  if ('iface' in e) return e.iface;
  if ('path' in e) return e.path;
  return e.kind;
}

/** One line naming an effect and its object, for verdicts and errors. */
export function effectLabel(e: StepEffect): string {
  if (e.kind === 'none') return 'no change';
  if (e.kind === 'at-apply') return `resolved at apply time (${e.effects.join(', ')})`;
  if (e.kind === 'discover') return `discover ${e.portal} (${e.iface})`;
  return `${e.kind} ${effectObject(e)}`;
}
