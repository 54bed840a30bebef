/**
 * Names the sessions behind a sysfs probe change, so the watcher can re-read just those
 * (refreshSnapshot, src/engine/snapshot/incremental.ts). A disk's state belongs to the session on
 * its SCSI host (software iSCSI: one host per session, `H` of `H:C:T:L`). Anything the probe cannot
 * pin on a session — an object added or removed, a disk on a host no session claims — is structural:
 * the full snapshot is read.
 */
import type { ChangedSessions } from '../engine/snapshot/index.js';
import type { ProbeDetail } from './sysfs-probe.js';

const SESSION = /^session(\d+)$/;

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const STRUCTURAL: ChangedSessions = { sids: [], structural: true };

/** What changed from probe `prev` to probe `next` (see the file comment). */
export function diffProbes(prev: ProbeDetail, next: ProbeDetail): ChangedSessions {
  if (
    !sameList(prev.hctls, next.hctls) ||
    !sameList(prev.sessions, next.sessions) ||
    !sameList(prev.sessionHosts, next.sessionHosts) ||
    !sameList(prev.blocks, next.blocks)
  )
    return STRUCTURAL;
  const hosts = new Set<number>();
  next.hctls.forEach((hctl, i) => {
    if (next.deviceStates[i] !== prev.deviceStates[i]) hosts.add(Number(hctl.slice(0, hctl.indexOf(':'))));
  });
  const sids: number[] = [];
  // Offload HBAs (bnx2i, qla4xxx) put several sessions on one host: each of them is re-read.
  const claimed = new Set<number>();
  for (let j = 0; j < next.sessions.length; j++) {
    const h = next.sessionHosts[j];
    const owns = h !== undefined && hosts.has(h);
    if (owns) claimed.add(h);
    if (!owns && next.sessionStates[j] === prev.sessionStates[j]) continue;
    const sid = Number(SESSION.exec(next.sessions[j]!)?.[1]);
    if (!Number.isInteger(sid)) return STRUCTURAL;
    sids.push(sid);
  }
  // A disk changed on a host no session owns (or owns unresolved): cannot say whose.
  for (const h of hosts) if (!claimed.has(h)) return STRUCTURAL;
  return { sids, structural: false };
}
