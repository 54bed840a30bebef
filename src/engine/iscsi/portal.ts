/**
 * Portal strings in the forms the iSCSI stack uses them:
 * - sysfs `persistent_address`/`address` hold a bare address (IPv6 without brackets);
 * - kubelet, iscsiadm and the snapshot write `addr:port`, IPv6 bracketed (`[fd00::1]:3260`);
 * - iscsiadm session lines append `,tpgt` (`127.0.0.1:3260,1`).
 */

import { isIPv6 } from '../builtins-on-use.js';

/** iSCSI's well-known port (RFC 7143 section 13.1); kubelet's portalMounter appends it when no `:` is present. */
export const DEFAULT_ISCSI_PORT = 3260;

type PortalFamily = 'ipv4' | 'ipv6' | 'hostname';

interface ParsedPortal {
  /** Address without brackets (`fd00::1`, `10.0.0.1`, `san-a.example.com`). */
  address: string;
  /** Port, or undefined when the string named none. */
  port: number | undefined;
  /** Target portal group tag when the string carried `,tpgt`. */
  tpgt?: number;
  family: PortalFamily;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
// Loose on purpose: sysfs may show scoped (`fe80::1%eth0`) or v4-mapped (`::ffff:10.0.0.1`) forms.
const IPV6 = /^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[A-Za-z0-9_.-]+)?$/;

/** True for a dotted-quad IPv4 address. */
function isIpv4(address: string): boolean {
  return IPV4.test(address);
}

/** True for an IPv6 literal (without brackets). Requires at least two colons, as every IPv6 form has. */
function isIpv6(address: string): boolean {
  return IPV6.test(address) && address.split(':').length >= 3;
}

/** Classifies a bare address. Returns undefined when it is none of IPv4, IPv6 or a DNS hostname. */
export function addressFamily(address: string): PortalFamily | undefined {
  if (isIpv4(address)) return 'ipv4';
  if (isIpv6(address)) return 'ipv6';
  if (HOSTNAME.test(address)) return 'hostname';
  return undefined;
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/**
 * Parses `addr`, `addr:port`, `[v6]`, `[v6]:port`, a bare IPv6 literal (no port: the colons are the
 * address's), each optionally followed by `,tpgt`. Returns undefined for anything else.
 */
export function parsePortal(text: string): ParsedPortal | undefined {
  let s = text.trim();
  let tpgt: number | undefined;
  const comma = s.lastIndexOf(',');
  if (comma >= 0) {
    const t = s.slice(comma + 1);
    if (!/^-?\d+$/.test(t)) return undefined;
    tpgt = Number(t);
    s = s.slice(0, comma);
  }
  let address: string;
  let port: number | undefined;
  if (s.startsWith('[')) {
    const close = s.indexOf(']');
    if (close < 0) return undefined;
    address = s.slice(1, close);
    const rest = s.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined;
      port = parsePort(rest.slice(1));
      if (port === undefined) return undefined;
    }
    if (!isIpv6(address)) return undefined;
  } else if (isIpv6(s)) {
    address = s;
  } else {
    const colon = s.lastIndexOf(':');
    if (colon >= 0) {
      address = s.slice(0, colon);
      port = parsePort(s.slice(colon + 1));
      if (port === undefined) return undefined;
    } else {
      address = s;
    }
  }
  const family = addressFamily(address);
  if (!family) return undefined;
  const out: ParsedPortal = { address, port, family };
  if (tpgt !== undefined) out.tpgt = tpgt;
  return out;
}

/** `addr:port`, IPv6 bracketed: the snapshot's and kubelet's portal form. */
export function formatPortal(address: string, port: number | string): string {
  const a = stripBrackets(address);
  return isIpv6(a) ? `[${a}]:${port}` : `${a}:${port}`;
}

/** Removes the brackets of an IPv6 literal (`[fd00::1]` → `fd00::1`); other text unchanged. */
export function stripBrackets(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

/**
 * Canonical `addr:port` for comparing portals: brackets IPv6, lower-cases, adds the default port
 * the way kubelet's portalMounter would (but also for bracketed IPv6, which kubelet forgets).
 * Returns the trimmed input when it does not parse, so unknown forms still compare by text.
 */
export function normalizePortal(text: string, defaultPort: number = DEFAULT_ISCSI_PORT): string {
  const p = parsePortal(text);
  if (!p) return text.trim();
  return formatPortal(p.address.toLowerCase(), p.port ?? defaultPort);
}

/**
 * kubelet's `portalMounter`: appends `:3260` when the portal contains no `:` at all (iscsi.go).
 * A bracketed IPv6 without port therefore stays portless, exactly as kubelet names its dirs.
 */
export function kubeletPortal(portal: string): string {
  return portal.includes(':') ? portal : `${portal}:${DEFAULT_ISCSI_PORT}`;
}

/**
 * Keys kubelet's GetISCSIPortalHostMapForTarget puts in its map for one sysfs address/port pair:
 * `addr:port`, and for IPv6 (the value contains `:`) also `[addr]:port` (kubernetes PR #110688).
 */
export function portalHostMapKeys(address: string, port: string): string[] {
  const keys = [`${address}:${port}`];
  if (address.includes(':')) keys.push(`[${address}]:${port}`);
  return keys;
}

/**
 * A target portal as an admin types it or a plan carries it (`addr[:port]`, `[v6][:port]`, a bare
 * IPv6 literal; no `,tpgt`), the port defaulted to 3260 for every form, bracketed IPv6 included.
 * Undefined on anything else.
 */
export function parseTargetPortal(text: string): (ParsedPortal & { port: number }) | undefined {
  const p = parsePortal(text);
  if (!p || p.tpgt !== undefined) return undefined;
  return { ...p, port: p.port ?? DEFAULT_ISCSI_PORT };
}

/**
 * Why a portal typed by an admin (flag, manifest, wizard) is not acceptable, or undefined when it
 * is: an IPv4 address, an IPv6 literal (bracketed when it has a port; checked by node:net, not
 * the loose form sysfs needs), or a DNS hostname (labels of at most 63, 253 in all), with an
 * optional port 1-65535. No `,tpgt`, no whitespace or control characters.
 */
export function portalProblem(text: string): string | undefined {
  if (text.length === 0) return 'the portal is empty';
  if (/[\p{Cc}\p{Cf}\s]/u.test(text)) return 'a portal contains no whitespace or control characters';
  if (text.includes(',')) return 'a portal is ADDR[:PORT] (no ,TPGT)';
  const p = parsePortal(text);
  if (!p) {
    const port = /:(\d+)$/.exec(text)?.[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return 'a port is 1-65535';
    return 'a portal is IPv4[:PORT], [IPv6][:PORT] or HOSTNAME[:PORT]';
  }
  if (p.family === 'ipv6' && !isIPv6(p.address)) return `${p.address} is not an IPv6 address`;
  return undefined;
}
