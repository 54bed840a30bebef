/**
 * How long the kernel keeps a down session's I/O queued before failing it: `recovery_tmo`
 * (node.session.timeo.replacement_timeout) counted from the failure. The kernel exposes the
 * timeout and the session state (scsi_transport_iscsi.c in torvalds/linux: `recovery_tmo`, `state`;
 * `iscsiadm -m session -P 3` prints the same "Recovery Timeout" and "iSCSI Session State") but no
 * failure time, so the count starts at Session.downSeenAt, the first read that saw it down. The
 * failure may be older, so the time left is an upper bound.
 */
import type { Session } from '../model.js';
import { isSessionDown } from './outages.js';

type RecoveryClock =
  /** Logged in, connections up: no recovery running. */
  | { kind: 'up' }
  /** Down with recovery_tmo off (-1): the kernel queues I/O until the session is back, forever. */
  | { kind: 'forever' }
  /** FREE: the timer expired; devices are transport-offline and I/O fails. */
  | { kind: 'expired' }
  /** Down and counting: at most `leftMs` before the kernel fails I/O (0: due now). */
  | { kind: 'counting'; leftMs: number; seenDownMs: number; tmoS: number }
  /** Down, but recovery_tmo or the first sighting is unknown. */
  | { kind: 'unknown' };

export function recoveryClock(s: Session, nowMs: number): RecoveryClock {
  if (!isSessionDown(s)) return { kind: 'up' };
  if (s.state === 'FREE') return { kind: 'expired' };
  if (s.recoveryTmo === -1) return { kind: 'forever' };
  const seen = s.downSeenAt === undefined ? Number.NaN : Date.parse(s.downSeenAt);
  if (s.recoveryTmo === undefined || !Number.isFinite(seen)) return { kind: 'unknown' };
  const seenDownMs = Math.max(0, nowMs - seen);
  return {
    kind: 'counting',
    leftMs: Math.max(0, s.recoveryTmo * 1000 - seenDownMs),
    seenDownMs,
    tmoS: s.recoveryTmo,
  };
}

/** One line for the session detail (and anything else that shows it). */
export function describeRecovery(c: RecoveryClock): string {
  switch (c.kind) {
    case 'up':
      return 'no recovery running (logged in, connections up)';
    case 'forever':
      return 'recovery_tmo off: the kernel queues I/O until the session is back (unmounts hang meanwhile)';
    case 'expired':
      return 'recovery_tmo expired (session FREE): the kernel fails I/O; devices are transport-offline until iscsid logs back in';
    case 'unknown':
      return 'the kernel gives up after recovery_tmo; how much of it is left is unknown';
    case 'counting': {
      const left = Math.ceil(c.leftMs / 1000);
      const seen = Math.floor(c.seenDownMs / 1000);
      return left > 0
        ? `the kernel fails I/O in at most ${left} s (recovery_tmo ${c.tmoS} s, down for at least ${seen} s: the kernel records no failure time)`
        : `recovery_tmo (${c.tmoS} s) is due: the kernel fails I/O now (down for at least ${seen} s)`;
    }
  }
}
