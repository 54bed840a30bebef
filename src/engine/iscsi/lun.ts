/**
 * LUN naming as udev's path_id builds `/dev/disk/by-path` links (systemd `format_lun_number`):
 * LUN < 256 → `lun-<decimal>`; otherwise `lun-0x%04lx%04lx00000000` of (lun & 0xffff, lun >> 16 & 0xffff).
 * kubelet always looks for `lun-<decimal>`, so it never finds a LUN >= 256 (kubelet-iscsi-engine.md §1.7).
 */
import { stripBrackets } from './portal.js';

/** The `lun-N` component of a by-path name, as udev path_id writes it. */
export function byPathLunName(lun: number): string {
  if (lun < 256) return `lun-${lun}`;
  const lo = (lun & 0xffff).toString(16).padStart(4, '0');
  const hi = (Math.floor(lun / 0x10000) & 0xffff).toString(16).padStart(4, '0');
  return `lun-0x${lo}${hi}00000000`;
}

/** Parses a by-path LUN component (`lun-3`, `lun-0x0100000000000000`) back to the LUN number. */
export function parseByPathLun(text: string): number | undefined {
  const m = /^lun-(?:(\d+)|0x([0-9a-f]{4})([0-9a-f]{4})0{8})$/.exec(text);
  if (!m) return undefined;
  if (m[1] !== undefined) return Number(m[1]);
  return Number.parseInt(m[2]!, 16) + Number.parseInt(m[3]!, 16) * 0x10000;
}

/**
 * The `/dev/disk/by-path` link name udev gives an iSCSI software-transport LUN:
 * `ip-<persistent_address>:<persistent_port>-iscsi-<targetname>-lun-<L>`. The address is the sysfs
 * value, so IPv6 is unbracketed (path_id `handle_scsi_iscsi`).
 */
export function byPathName(address: string, port: number | string, iqn: string, lun: number): string {
  return `ip-${stripBrackets(address)}:${port}-iscsi-${iqn}-${byPathLunName(lun)}`;
}

export interface ParsedByPath {
  /** `pci-<bdf>` prefix for offload HBAs, when present. */
  pci?: string;
  address: string;
  port: number;
  iqn: string;
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
