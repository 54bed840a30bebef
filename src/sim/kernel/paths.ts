/** Where the kernel puts each object in sysfs (layout of single-sysfs.json / mp-sysfs.json). */

export const hostDir = (h: number) => `/sys/devices/platform/host${h}`;
export const sessionDir = (h: number, sid: number) => `${hostDir(h)}/session${sid}`;
export const sessionAttrDir = (h: number, sid: number) => `${sessionDir(h, sid)}/iscsi_session/session${sid}`;
export const connDir = (h: number, sid: number) =>
  `${sessionDir(h, sid)}/connection${sid}:0/iscsi_connection/connection${sid}:0`;
export const targetDir = (h: number, sid: number) => `${sessionDir(h, sid)}/target${h}:0:0`;
export const hctl = (h: number, lun: number) => `${h}:0:0:${lun}`;
export const sdevDir = (h: number, sid: number, lun: number) => `${targetDir(h, sid)}/${hctl(h, lun)}`;
export const dmDir = (minor: number) => `/sys/devices/virtual/block/dm-${minor}`;
export const loopDir = (minor: number) => `/sys/devices/virtual/block/loop${minor}`;

/** Matches the canonical (symlink-resolved) paths of writable kernel attributes. */
export const SYSFS_WRITE_PATTERNS = {
  scan: /^\/sys\/devices\/platform\/host(\d+)\/scsi_host\/host\d+\/scan$/,
  sdev: /^\/sys\/devices\/platform\/host(\d+)\/session(\d+)\/target\d+:0:0\/\d+:0:0:(\d+)\/(delete|state|rescan|timeout|queue_depth|eh_timeout)$/,
  recoveryTmo: /^\/sys\/devices\/platform\/host\d+\/session(\d+)\/iscsi_session\/session\d+\/recovery_tmo$/,
} as const;
