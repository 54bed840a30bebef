/**
 * The cheap sysfs poll. sysfs attribute values are computed on read: no inotify event, and size
 * (4096) and mtime never move, so neither chokidar mode sees them (tui-ux-and-style.md §2.9, checked
 * on a real kernel); nor does a uevent fire when a session goes FAILED (scsi_transport_iscsi.c only
 * tells iscsid over netlink) or when SCSI EH or an admin sets a device offline. So we read, every
 * tick, exactly what can change silently: the session list and each session's `state`, the SCSI
 * device list and each device's `state`, and the block device names. That is one read per session
 * and per LUN; the full snapshot is only taken when this fingerprint moves.
 */
import type { Host } from '../engine/host/host.js';
import { ISCSI_SESSION_CLASS } from '../engine/snapshot/sessions.js';

export const SCSI_DEVICE_CLASS = '/sys/class/scsi_device';
export const BLOCK_CLASS = '/sys/block';

export interface SysfsProbe {
  /** Changes whenever a session, SCSI device or block device appears, goes, or changes state. */
  fingerprint: string;
  sessions: number;
  devices: number;
  /** Files and directories read (for the benchmark). */
  reads: number;
}

/** One cheap pass over the volatile sysfs state. Missing entries (a logout mid-read) are data, not errors. */
export function probeSysfs(host: Host): SysfsProbe {
  const parts: string[] = [];
  const sessions = host.readDir(ISCSI_SESSION_CLASS);
  for (const name of sessions) {
    parts.push(name, host.readText(`${ISCSI_SESSION_CLASS}/${name}/state`) ?? '-');
  }
  parts.push('|');
  const devices = host.readDir(SCSI_DEVICE_CLASS);
  for (const hctl of devices) {
    parts.push(hctl, host.readText(`${SCSI_DEVICE_CLASS}/${hctl}/device/state`) ?? '-');
  }
  parts.push('|');
  const blocks = host.readDir(BLOCK_CLASS);
  for (const b of blocks) parts.push(b);
  return {
    fingerprint: parts.join('\n'),
    sessions: sessions.length,
    devices: devices.length,
    reads: 3 + sessions.length + devices.length,
  };
}
