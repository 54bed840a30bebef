/** Changes to the single-session capture fixture, made the way the kernel makes them. */
import * as fs from 'node:fs';
import type { FixtureRoot } from '../snapshot/fixture-root.js';

/** What a logout leaves in sysfs: the session, its connection, its SCSI devices and disks gone. */
export function logout(f: FixtureRoot): void {
  for (const p of [
    '/sys/class/iscsi_session/session1',
    '/sys/class/iscsi_connection/connection1:0',
    '/sys/class/scsi_device/0:0:0:0',
    '/sys/class/scsi_device/0:0:0:1',
    '/sys/class/scsi_device/0:0:0:2',
    '/sys/bus/scsi/devices/0:0:0:0',
    '/sys/bus/scsi/devices/0:0:0:1',
    '/sys/bus/scsi/devices/0:0:0:2',
    '/sys/bus/scsi/devices/target0:0:0',
    '/sys/block/sda',
    '/sys/block/sdb',
    '/sys/devices/platform/host0/session1',
  ]) {
    fs.rmSync(f.at(p), { recursive: true, force: true });
  }
}

/** What `__iscsi_block_session` leaves: session FAILED, its SCSI devices blocked. */
export function failSession(f: FixtureRoot): void {
  f.setAttr('/sys/class/iscsi_session/session1/state', 'FAILED\n');
  for (const d of ['0:0:0:0', '0:0:0:1', '0:0:0:2'])
    f.setAttr(`/sys/bus/scsi/devices/${d}/state`, 'blocked\n');
}
