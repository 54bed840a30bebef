/**
 * Per-session and per-device series, from the snapshot's own facts (verdict and health from
 * verdicts.ts, down time from outages.ts's carryDownTimes): nothing is decided again here.
 */
import type { Session } from '../model.js';
import { isSessionDown } from '../snapshot/outages.js';
import type { FamilySet } from './family-set.js';
import { DEVICE_STATES, HEALTHS, knownOr, SESSION_STATES, stateSet, VERDICTS } from './states.js';

/** The labels that name a session across re-logins (its fingerprint: target, portal, iface). */
export function sessionLabels(s: Pick<Session, 'targetIqn' | 'portal' | 'iface'>): Record<string, string> {
  return { target: s.targetIqn, portal: s.portal, iface: s.iface };
}

export function addSession(set: FamilySet, s: Session): void {
  const id = sessionLabels(s);
  set.add('iscsi_session_info', { sid: String(s.sid), ...id, initiator: s.initiatorName ?? '' }, 1);
  set.addAll('iscsi_session_state', stateSet(id, 'state', s.state, SESSION_STATES));
  set.addAll('iscsi_session_verdict', stateSet(id, 'verdict', s.verdict, VERDICTS));
  set.addAll('iscsi_session_health', stateSet(id, 'health', s.health, HEALTHS));
  if (s.recoveryTmo !== undefined) set.add('iscsi_session_recovery_timeout_seconds', id, s.recoveryTmo);
  const seen = s.downSeenAt ? Date.parse(s.downSeenAt) : Number.NaN;
  if (isSessionDown(s) && Number.isFinite(seen))
    set.add('iscsi_session_down_since_timestamp_seconds', id, seen / 1000);
  addDevices(set, s);
}

/**
 * A device's state as `running` 0/1 for every device plus its own state while not running: the
 * full state set (9 kernel states) for 4,000 LUNs would be 36,000 series on its own, past the
 * 30,000 a 1,000-session node may use. `iscsi_device_state{state="running"} == 0` finds them all.
 */
function addDevices(set: FamilySet, s: Session): void {
  for (const d of s.devices) {
    const device = d.name ?? '';
    set.add(
      'iscsi_device_info',
      {
        ...sessionLabels(s),
        lun: String(d.lun),
        kernel_lun: String(d.kernelLun ?? d.lun),
        device,
        hctl: d.hctl,
      },
      1,
    );
    // A LUN 0 controller has no block device: info only (its hctl names it).
    if (!device) continue;
    const state = knownOr(d.state, DEVICE_STATES);
    set.add('iscsi_device_state', { device, state: 'running' }, state === 'running' ? 1 : 0);
    if (state !== 'running') set.add('iscsi_device_state', { device, state }, 1);
    for (const holder of d.holders) set.add('iscsi_device_holder_info', { device, holder }, 1);
  }
}
