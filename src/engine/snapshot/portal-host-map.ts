import type { Host } from '../host/host.js';
import { portalHostMapKeys } from '../iscsi/portal.js';
import type { Session } from '../model.js';
import { cleanAttr } from './attr.js';

export type PortalHostMap = Record<string, Record<string, number>>;

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

/**
 * The same map for one target, read exactly the way kubelet walks sysfs: `/sys/class/iscsi_host/host<N>/device/session<M>/...`.
 * An absent iscsi_host class (modules not loaded) gives an empty map, not an error (kubernetes #74640).
 * The action engine uses this right before a login, when the snapshot may be stale.
 */
export function readPortalHostMapForTarget(host: Host, iqn: string): Record<string, number> {
  const out: Record<string, number> = {};
  const base = '/sys/class/iscsi_host';
  for (const h of host.readDir(base)) {
    const m = /^host(\d+)$/.exec(h);
    if (!m) continue;
    const n = Number(m[1]);
    const dev = `${base}/${h}/device`;
    for (const sess of host.readDir(dev)) {
      if (!sess.startsWith('session')) continue;
      const sd = `${dev}/${sess}`;
      const tn = cleanAttr(host.readText(`${sd}/iscsi_session/${sess}/targetname`));
      if (tn !== iqn) continue;
      for (const conn of host.readDir(sd)) {
        if (!conn.startsWith('connection')) continue;
        const cd = `${sd}/${conn}/iscsi_connection/${conn}`;
        const vals = ['address', 'port', 'persistent_address', 'persistent_port'].map((a) =>
          host.readText(`${cd}/${a}`)?.trim(),
        );
        if (vals.some((v) => v === undefined)) continue;
        const [addr, port, paddr, pport] = vals as string[];
        for (const k of portalHostMapKeys(addr!, port!)) out[k] = n;
        for (const k of portalHostMapKeys(paddr!, pport!)) out[k] = n;
      }
    }
  }
  return out;
}
