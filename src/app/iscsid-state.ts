/**
 * iscsid up/down for the status bar: the doctor's own check (daemons.ts), cached for 5 s because
 * it scans /proc and the status bar asks every second.
 */
import { iscsidRunning } from '../engine/doctor/checks/daemons.js';
import { doctorContext } from '../engine/doctor/index.js';
import type { Host } from '../engine/host/host.js';
import type { ExecMode } from '../engine/host/runner.js';

type IscsidState = 'up' | 'down' | 'socket' | '?';

export function iscsidStateProbe(o: { host: Host; kubeletRoot: string; exec: ExecMode }): () => IscsidState {
  let cached: { at: number; state: IscsidState } | undefined;
  return () => {
    const now = Date.now();
    if (cached && now - cached.at < 5000) return cached.state;
    let state: IscsidState = '?';
    try {
      const c = iscsidRunning(
        doctorContext(o.host, { kubeletRoot: o.kubeletRoot, exec: o.exec, timeoutMs: 1000 }),
      );
      state =
        c.status === 'pass'
          ? 'up'
          : c.status === 'fail'
            ? 'down'
            : c.evidence.includes('socket activation')
              ? 'socket'
              : 'up';
    } catch {
      state = '?';
    }
    cached = { at: now, state };
    return state;
  };
}
