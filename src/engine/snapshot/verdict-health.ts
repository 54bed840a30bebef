/**
 * A session's health (docs/status-schema.md): `failed` if not LOGGED_IN or no device is running;
 * `degraded` if some device is not running or a multipath map holding one of its devices lost a
 * path; else `ok` — with a reason for each.
 */
import type { Health, MultipathMap } from '../model.js';
import type { SysfsSession } from './sessions.js';
import type { VerdictIndex } from './verdict-index.js';

export function sessionHealth(s: SysfsSession, idx: VerdictIndex): { health: Health; reasons: string[] } {
  const reasons: string[] = [];
  let health: Health = 'ok';
  let running = 0;
  for (const d of s.devices) if (d.state === 'running') running++;
  if (s.state !== 'LOGGED_IN') {
    health = 'failed';
    reasons.push(`session state is ${s.state}, not LOGGED_IN`);
  }
  if (running === 0) {
    health = 'failed';
    reasons.push(
      s.devices.length === 0 ? 'the session has no SCSI devices' : 'no SCSI device of the session is running',
    );
  }
  for (const d of s.devices) {
    if (d.state === 'running') continue;
    if (health === 'ok') health = 'degraded';
    // A LUN without a block device (a controller LUN 0) is named by its H:C:T:L once, not twice.
    reasons.push(`${d.name ? `${d.name} (${d.hctl})` : d.hctl} is ${d.state ?? 'in an unknown state'}`);
  }
  const lost = degradedMaps(s, idx);
  if (lost.length > 0 && health === 'ok') health = 'degraded';
  for (const m of lost)
    reasons.push(
      `multipath map ${m.alias} (${m.name}) lost a path: ${m.failedSlaves.join(', ')} not running`,
    );
  return { health, reasons };
}

/** The multipath maps over the session's devices that lost a path, each once. */
function degradedMaps(s: SysfsSession, idx: VerdictIndex): MultipathMap[] {
  let seen: MultipathMap[] | undefined;
  for (const d of s.devices) {
    const m = d.name ? idx.mapsBySlave.get(d.name) : undefined;
    if (!m || m.failedSlaves.length === 0 || seen?.includes(m)) continue;
    if (seen) seen.push(m);
    else seen = [m];
  }
  return seen ?? NONE;
}

const NONE: MultipathMap[] = [];
