import { DEFAULT_ISCSI_PORT, parsePortal } from '../../engine/iscsi/portal.js';
import type { Portal } from '../types.js';

/** `sd` name for an sd index, base-26 like drivers/scsi/sd.c sd_format_disk_name (0 → sda, 26 → sdaa). */
export function sdName(index: number): string {
  let s = '';
  let i = index;
  do {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26) - 1;
  } while (i >= 0);
  return `sd${s}`;
}

/** Inverse of sdName; undefined for names that are not sd disks. */
export function sdIndex(name: string): number | undefined {
  const m = /^sd([a-z]+)$/.exec(name);
  if (!m) return undefined;
  let n = 0;
  for (const ch of m[1]!) n = n * 26 + (ch.charCodeAt(0) - 96);
  return n - 1;
}

/** Block major:minor of an sd disk (sd.c: sd_major((index & 0xf0) >> 4), minor packs the rest). */
export function sdDevt(index: number): { major: number; minor: number } {
  const group = (index & 0xf0) >> 4;
  const major = group === 0 ? 8 : group <= 7 ? 64 + group : 128 + group - 8;
  return { major, minor: ((index & 0xf) << 4) | (index & 0xfff00) };
}

/** device-mapper's dynamic major on the captured kernel (mp-sysfs.json: dm-0 is 254:0). */
export const DM_MAJOR = 254;
export const LOOP_MAJOR = 7;

/**
 * The 8-byte LUN field tgt puts in its REPORT LUNS answer for a target LUN (tgt usr/spc.c
 * spc_report_luns: `(lun > 0xff ? 1 << 30 : 0) | (0x3ff & lun) << 16`, shifted into the top
 * 32 bits, big-endian): peripheral addressing below 256, flat space addressing (0x40) above.
 */
export function tgtLunField(targetLun: number): number[] {
  const v = (targetLun > 0xff ? 1 << 30 : 0) | ((0x3ff & targetLun) << 16);
  return [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff, 0, 0, 0, 0];
}

/** linux drivers/scsi/scsi_common.c scsilun_to_int: byte pairs, first pair lowest, high byte first. */
export function scsilunToInt(field: readonly number[]): number {
  let lun = 0;
  for (let i = 0; i < 8; i += 2) lun += (((field[i] ?? 0) << 8) | (field[i + 1] ?? 0)) * 2 ** (i * 8);
  return lun;
}

/** The kernel's LUN number for a LUN of a simulated tgt target (300 → 16684). */
export function kernelLunFromTgt(targetLun: number): number {
  return scsilunToInt(tgtLunField(targetLun));
}

/**
 * udev's by-path name (systemd path_id handle_scsi_iscsi + format_lun_number) of a kernel LUN
 * number: persistent address unbracketed even for IPv6, `lun-<n>` below 256,
 * `lun-0x%04x%04x00000000` from 256 on.
 */
export function byPathName(portal: Portal, iqn: string, lun: number): string {
  const lunPart =
    lun < 256
      ? `lun-${lun}`
      : `lun-0x${(lun & 0xffff).toString(16).padStart(4, '0')}${((lun >> 16) & 0xffff).toString(16).padStart(4, '0')}00000000`;
  return `ip-${portal.address}:${portal.port}-iscsi-${iqn}-${lunPart}`;
}

/**
 * A portal as `iscsiadm -p` takes it (`addr`, `addr:port`, `[v6]`, `[v6]:port`, a trailing `,tpgt`),
 * read by the engine's one parser (src/engine/iscsi/portal.ts) with iscsiadm's default port. Text
 * that is no portal stays as it was typed, so it matches no record or session, as with iscsiadm.
 */
export function portalOf(text: string): Portal & { tpgt?: number } {
  const p = parsePortal(text);
  if (!p) return { address: text, port: DEFAULT_ISCSI_PORT };
  const portal = { address: p.address, port: p.port ?? DEFAULT_ISCSI_PORT };
  return p.tpgt === undefined ? portal : { ...portal, tpgt: p.tpgt };
}

/** `addr:port` with brackets when the address has no dot, as iscsiadm prints portals (docs/iscsiadm.md#session-listing). */
export function portalText(p: Portal): string {
  return p.address.includes('.') ? `${p.address}:${p.port}` : `[${p.address}]:${p.port}`;
}

/** `addr,port` as iscsiadm login/logout messages and node DB directory names print it. */
export function portalComma(p: Portal): string {
  return `${p.address},${p.port}`;
}

export function samePortal(a: Portal, b: Portal): boolean {
  return a.address === b.address && a.port === b.port;
}

/** tgt's NAA WWID: `naa.6` + zeros + `e` + target id and LUN (mp-sysfs.json: naa.60000000000000000e00000000010001). */
export function tgtWwid(tid: number, lun: number): string {
  return `naa.60000000000000000e0000000${tid.toString(16).padStart(3, '0')}${lun.toString(16).padStart(4, '0')}`;
}

/** multipath's WWID for a `naa.` wwid: the `3` NAA designator prefix (dm uuid `mpath-3600...`). */
export function multipathWwid(wwid: string): string {
  return wwid.startsWith('naa.') ? `3${wwid.slice(4)}` : wwid;
}

/** multipathd's user_friendly_names: mpatha, mpathb, ... mpathz, mpathaa. */
export function mpathName(n: number): string {
  return `mpath${sdName(n).slice(2)}`;
}
