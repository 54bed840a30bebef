/**
 * Adapters over the shared naming helpers (src/engine/iscsi/*, src/engine/kubelet/paths.ts) in the
 * shapes the planners use; no second copies of the rules live here.
 */

import { byPathName as udevByPathName } from '../iscsi/lun.js';
import { isValidIscsiName } from '../iscsi/names.js';
import { DEFAULT_ISCSI_PORT, formatPortal as fmt, parsePortal as parse } from '../iscsi/portal.js';
import { makePDName, makeVDPDName } from '../kubelet/paths.js';

/** A portal split into its parts. `addr` never carries brackets. */
export interface PortalParts {
  addr: string;
  port: number;
  v6: boolean;
  /** The address is a DNS name (kubelet never matches these in its portal→host map, §1.5). */
  hostname: boolean;
}

/**
 * Parses `addr[:port]`, `[v6][:port]` or a bare IPv6 literal; the port defaults to 3260 for every
 * form (kubelet's portalMounter forgets bracketed IPv6 without a port). Undefined on garbage.
 */
export function parsePortal(text: string): PortalParts | undefined {
  const p = parse(text);
  if (!p || p.tpgt !== undefined) return undefined;
  return {
    addr: p.address,
    port: p.port ?? DEFAULT_ISCSI_PORT,
    v6: p.family === 'ipv6',
    hostname: p.family === 'hostname',
  };
}

/** `addr:port`, IPv6 bracketed: the form iscsiadm takes and the snapshot uses. */
export function formatPortal(p: Pick<PortalParts, 'addr' | 'port'>): string {
  return fmt(p.addr, p.port);
}

/** `/dev/disk/by-path` name of a LUN over tcp (udev path_id; LUN ≥ 256 in hex form). */
export function byPathName(portal: PortalParts, iqn: string, lun: number): string {
  return udevByPathName(portal.addr, portal.port, iqn, lun);
}

export const isValidTargetName = isValidIscsiName;

/** kubelet makePDNameInternal / makeVDPDNameInternal (§1.2). */
export function kubeletGlobalPath(
  kubeletRoot: string,
  mode: 'filesystem' | 'block',
  iface: string,
  portal: string,
  iqn: string,
  lun: string,
): string {
  return mode === 'block'
    ? makeVDPDName(kubeletRoot, iface, portal, iqn, lun)
    : makePDName(kubeletRoot, iface, portal, iqn, lun);
}
