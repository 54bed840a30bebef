import { portalHostMapKeys } from '../iscsi/portal.js';
import type { Session } from '../model.js';

type PortalHostMap = Record<string, Record<string, number>>;

/**
 * kubelet's GetISCSIPortalHostMapForTarget for every target at once, built from sessions already
 * read (docs/kubelet-iscsi.md#portal-host-map): for each connection whose address, port, persistent_address
 * and persistent_port all read (kubelet skips a connection on any read error — so a down connection,
 * whose address answers ENOTCONN, contributes no key and kubelet will try to log in again), keys
 * `addr:port` and `persistent_addr:persistent_port`, plus `[addr]:port` forms for IPv6.
 */
export function buildPortalHostMap(
  sessions: readonly Pick<Session, 'targetIqn' | 'hostNumber' | 'connections'>[],
): PortalHostMap {
  const map: PortalHostMap = {};
  for (const s of sessions) {
    if (s.hostNumber === undefined || s.targetIqn === '') continue;
    for (const c of s.connections) {
      if (
        c.address === undefined ||
        c.port === undefined ||
        c.persistentAddress === undefined ||
        c.persistentPort === undefined
      ) {
        continue;
      }
      const m = map[s.targetIqn] ?? {};
      map[s.targetIqn] = m;
      for (const k of portalHostMapKeys(c.address, String(c.port))) m[k] = s.hostNumber;
      for (const k of portalHostMapKeys(c.persistentAddress, String(c.persistentPort))) m[k] = s.hostNumber;
    }
  }
  return map;
}
