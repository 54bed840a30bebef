/**
 * LUN numbers, three ways, and the conversions between them:
 * - the **target LUN** (SAM): what an array, a PV spec (`lun: 300`) and kubelet's dir names use.
 *   0–255 travel in peripheral device addressing (bus 0); 256–16383 in flat space addressing, the
 *   8-byte LUN field starting `0x40 | L >> 8, L & 0xff` (SAM-5 4.7; tgt's usr/spc.c
 *   spc_report_luns writes `(lun > 0xff ? 1 << 30 : 0) | (0x3ff & lun) << 16` into REPORT LUNS).
 * - the **kernel LUN**: the number Linux gives that 8-byte field (linux drivers/scsi/scsi_common.c
 *   scsilun_to_int: byte pairs swapped into a u64, so `41 2c 00 …` → 0x412c = 16684). It is the
 *   `L` of `H:C:T:L` in sysfs, and what the host's `scan` attribute takes (drivers/scsi/scsi_sysfs.c
 *   scsi_scan → int_to_scsilun turns it back into the 8 bytes sent to the target). So target LUN 300
 *   is kernel LUN 16684; writing `0 0 300` asks for `01 2c 00 …` (bus 1, LUN 0x2c), which no
 *   target has.
 * - the **by-path name**: udev's path_id (systemd src/udev/udev-builtin-path_id.c format_lun_number)
 *   formats the kernel LUN: `lun-<decimal>` below 256, else `lun-0x%04lx%04lx00000000` of
 *   (lun & 0xffff, lun >> 16 & 0xffff) — kernel 16684 → `lun-0x412c000000000000`.
 * kubelet writes `0 0 <target LUN>` and looks for `lun-<target LUN>` (kubernetes
 * pkg/volume/iscsi/iscsi_util.go scanOneLun, AttachDisk), so it never reaches a LUN ≥ 256.
 */
import { decimalOf } from '../decimal.js';
import { UserError } from '../errors.js';
import { stripBrackets } from './portal.js';

/** Highest target LUN flat space addressing carries (14 bits). */
export const MAX_TARGET_LUN = 16383;
const FLAT_SPACE = 0x4000;

/** The kernel's LUN number for a target LUN (0–255 unchanged, 256–16383 → 0x4000 | L). */
export function kernelLunOf(targetLun: number): number {
  return targetLun < 256 ? targetLun : FLAT_SPACE | targetLun;
}

/**
 * A target LUN from a flag, the wizard or a manifest: decimal digits only (decimal.ts), 0..16383
 * (flat space addressing above 255). A number above that is likely the kernel's number for one.
 */
export function parseLun(text: unknown): number {
  const n =
    typeof text === 'number'
      ? Number.isSafeInteger(text)
        ? text
        : undefined
      : decimalOf(String(text ?? ''));
  if (n === undefined || n > MAX_TARGET_LUN) {
    const t = n !== undefined ? targetLunOf(n) : undefined;
    throw new UserError(
      `invalid LUN ${n !== undefined ? n : JSON.stringify(String(text))}`,
      t !== undefined
        ? `${n} is the kernel's number for target LUN ${t}: give the target's LUN (${t})`
        : 'a LUN is the target LUN, an integer 0..16383 in decimal digits',
    );
  }
  return n;
}

/**
 * The target LUN behind a kernel LUN number: below 256 the same; a single-level flat space LUN
 * (0x4000–0x7fff) its low 14 bits; anything else (other addressing methods, multi-level LUNs) has
 * no target LUN of this form and returns undefined.
 */
export function targetLunOf(kernelLun: number): number | undefined {
  if (!Number.isSafeInteger(kernelLun) || kernelLun < 0) return undefined;
  if (kernelLun < 256) return kernelLun;
  if (kernelLun >= FLAT_SPACE && kernelLun < 2 * FLAT_SPACE) return kernelLun & MAX_TARGET_LUN;
  return undefined;
}

/**
 * Why kubelet's in-tree plugin cannot attach this target LUN itself, or undefined when it can:
 * its `0 0 L` scan asks for another LUN and its `lun-L` by-path name is never created.
 */
export function kubeletLunProblem(targetLun: number): string | undefined {
  if (targetLun < 256) return undefined;
  const k = kernelLunOf(targetLun);
  return `kubelet cannot attach LUN ${targetLun} itself: it scans "0 0 ${targetLun}" (the kernel's LUN is ${k}) and waits for lun-${targetLun} (udev names it ${byPathLunName(k)})`;
}

/** The `lun-N` component of a by-path name for a kernel LUN number, as udev path_id writes it. */
export function byPathLunName(kernelLun: number): string {
  if (kernelLun < 256) return `lun-${kernelLun}`;
  const lo = (kernelLun & 0xffff).toString(16).padStart(4, '0');
  const hi = (Math.floor(kernelLun / 0x10000) & 0xffff).toString(16).padStart(4, '0');
  return `lun-0x${lo}${hi}00000000`;
}

/** Parses a by-path LUN component (`lun-3`, `lun-0x412c000000000000`) back to the kernel LUN number. */
export function parseByPathLun(text: string): number | undefined {
  const m = /^lun-(?:(\d+)|0x([0-9a-f]{4})([0-9a-f]{4})0{8})$/.exec(text);
  if (!m) return undefined;
  if (m[1] !== undefined) return Number(m[1]);
  return Number.parseInt(m[2]!, 16) + Number.parseInt(m[3]!, 16) * 0x10000;
}

/**
 * The `/dev/disk/by-path` link name udev gives an iSCSI software-transport LUN:
 * `ip-<persistent_address>:<persistent_port>-iscsi-<targetname>-lun-<L>`, L from the kernel LUN.
 * The address is the sysfs value, so IPv6 is unbracketed (path_id `handle_scsi_iscsi`).
 */
export function byPathName(address: string, port: number | string, iqn: string, kernelLun: number): string {
  return `ip-${stripBrackets(address)}:${port}-iscsi-${iqn}-${byPathLunName(kernelLun)}`;
}

interface ParsedByPath {
  /** `pci-<bdf>` prefix for offload HBAs, when present. */
  pci?: string;
  address: string;
  port: number;
  iqn: string;
  /** The kernel LUN number (16684 for target LUN 300). */
  lun: number;
  /** `-partN` suffix of a partition link. */
  partition?: number;
}

/** Parses a by-path link name of an iSCSI LUN (or partition of one); undefined for other links. */
export function parseByPathName(name: string): ParsedByPath | undefined {
  const m =
    /^(?:(pci-[^-]+(?:-[^-]+)*?)-)?ip-(.+):(\d+)-iscsi-(.+)-(lun-(?:\d+|0x[0-9a-f]{16}))(?:-part(\d+))?$/.exec(
      name,
    );
  if (!m) return undefined;
  const lun = parseByPathLun(m[5]!);
  if (lun === undefined) return undefined;
  const out: ParsedByPath = { address: m[2]!, port: Number(m[3]), iqn: m[4]!, lun };
  if (m[1]) out.pci = m[1];
  if (m[6]) out.partition = Number(m[6]);
  return out;
}

/** The kernel LUN number of a snapshot device (`kernelLun` is set only where it differs). */
export function deviceKernelLun(d: { lun: number; kernelLun?: number }): number {
  return d.kernelLun ?? d.lun;
}

/** How a person reads a device's LUN: `300 (kernel 16684)` where the numbers differ, else `3`. */
export function lunLabel(d: { lun: number; kernelLun?: number }): string {
  return d.kernelLun === undefined ? String(d.lun) : `${d.lun} (kernel ${d.kernelLun})`;
}
