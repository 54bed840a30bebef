/**
 * The cheap sysfs poll. sysfs attribute values are computed on read: no inotify event, and size
 * (4096) and mtime never move, so neither chokidar mode sees them (tui-ux-and-style.md §2.9, checked
 * on a real kernel); nor does a uevent fire when a session goes FAILED (scsi_transport_iscsi.c only
 * tells iscsid over netlink) or when SCSI EH or an admin sets a device offline. So each tick reads
 * what can change silently, and the full snapshot is only taken when this fingerprint moves.
 *
 * One read per object would be ~3,000 reads per tick at 1,000 sessions × 1 LUN. Two kernel facts
 * cut that down:
 * - A session's state moves its disks' states with it: `__iscsi_block_session` sets FAILED and then
 *   blocks the session's SCSI target (running → blocked), `__iscsi_unblock_session` sets LOGGED_IN and
 *   unblocks (→ running), `session_recovery_timedout` unblocks to transport-offline
 *   (drivers/scsi/scsi_transport_iscsi.c). So while every disk of a session reads `running`, the
 *   session is LOGGED_IN and its own `state` need not be read; it is read when it has no disk or
 *   when any disk is not running.
 * - tgt's LUN 0 is a controller (type 12) with no block device: its add/remove counts, its state not.
 * Links are resolved and device types read once per name (forgotten when the name disappears or
 * stops resolving), so a tick walks no symlinks; where the Host can, each disk's `state` stays open
 * and is re-read with one pread(2) at offset 0 (sysfs regenerates the value on every such read:
 * that is how poll(2)/sysfs_notify users re-read attributes), about 3× cheaper than open+read+close.
 */
import type { FileReader, Host } from '../engine/host/host.js';
import { resolveLink } from '../engine/host/path.js';
import { ISCSI_SESSION_CLASS } from '../engine/snapshot/sessions.js';

/** Every SCSI bus device (`H:C:T:L`, hosts, targets) links here, straight to its device dir. */
export const SCSI_BUS_DEVICES = '/sys/bus/scsi/devices';
export const BLOCK_CLASS = '/sys/block';
const HCTL = /^\d+:\d+:\d+:\d+$/;
/** `../../devices/platform/host3/session3/iscsi_session/session3` → 3 (captures single-sysfs.json). */
const SESSION_HOST = /\/host(\d+)\/session\d+\//;
const CONTROLLER_TYPE = '12';

export interface SysfsProbe {
  /** Changes whenever a session, SCSI device or block device appears, goes, or changes state. */
  fingerprint: string;
  sessions: number;
  devices: number;
  /** Files read, directories listed and links resolved (for the benchmark). */
  reads: number;
  /** What the fingerprint is made of, so a change can be traced to sessions (probe-diff.ts). */
  detail: ProbeDetail;
}

/** The fingerprint's parts as parallel lists, in listing order. */
export interface ProbeDetail {
  /** `H:C:T:L` entries of the SCSI bus. */
  hctls: string[];
  /** Per hctl: the disk's raw `state` ('' for a controller, '-' when unreadable). */
  deviceStates: string[];
  /** iscsi_session class entries. */
  sessions: string[];
  /** Per session: its raw `state`, '' when implied by its running disks, '-' when unreadable. */
  sessionStates: string[];
  /** Per session: its SCSI host number, when its class link resolved. */
  sessionHosts: (number | undefined)[];
  /** /sys/block entries. */
  blocks: string[];
}

interface DeviceEntry {
  /** The device's own dir (the bus link resolved once: no symlink walk per tick). */
  dir: string;
  controller: boolean;
  /** `state` kept open when the host can (one pread per tick instead of open/fstat/read/close). */
  reader?: FileReader;
}

/**
 * Open `state` files kept at most. Node raises its soft fd limit to the hard one at start; 4,096
 * stays far below common hard limits (systemd: 524,288) while covering 1,000 sessions × 4 LUNs.
 */
export const DEFAULT_READER_BUDGET = 4_096;

interface SessionEntry {
  /** SCSI host number the session owns (software iSCSI: one host per session). */
  host: number;
  /** The session's attribute dir, resolved once. */
  dir: string;
}

/** Probes sysfs cheaply; keeps small per-name caches between ticks (create one per watcher). */
export class SysfsProber {
  private readonly devices = new Map<string, DeviceEntry>();
  private readonly sessionDirs = new Map<string, SessionEntry>();
  private readers = 0;

  constructor(
    private readonly host: Host,
    private readonly readerBudget = DEFAULT_READER_BUDGET,
  ) {}

  /** Closes the kept-open files. */
  close(): void {
    for (const hctl of [...this.devices.keys()]) this.forgetDevice(hctl);
  }

  private forgetDevice(hctl: string): void {
    const e = this.devices.get(hctl);
    if (e?.reader) {
      e.reader.close();
      this.readers--;
    }
    this.devices.delete(hctl);
  }

  private readState(e: DeviceEntry): string | undefined {
    if (!e.reader && this.host.openReader && this.readers < this.readerBudget) {
      e.reader = this.host.openReader(`${e.dir}/state`);
      if (e.reader) this.readers++;
    }
    return e.reader ? e.reader.read() : this.host.readText(`${e.dir}/state`);
  }

  /** One pass. Missing entries (a logout mid-read) are data, not errors. */
  probe(): SysfsProbe {
    const host = this.host;
    let reads = 3;
    const parts: string[] = [];
    const hctls = host.readDir(SCSI_BUS_DEVICES).filter((n) => HCTL.test(n));
    const deviceStates: string[] = [];
    const sessionStates: string[] = [];
    const sessionHosts: (number | undefined)[] = [];
    if (this.devices.size > 0) {
      const present = new Set(hctls);
      for (const hctl of [...this.devices.keys()]) if (!present.has(hctl)) this.forgetDevice(hctl);
    }
    // Per SCSI host: true while every disk on it is running (the session's state is then implied).
    const allRunning = new Map<number, boolean>();
    for (const hctl of hctls) {
      let e = this.devices.get(hctl);
      if (!e) {
        const busPath = `${SCSI_BUS_DEVICES}/${hctl}`;
        const link = host.readLink(busPath);
        const dir = link === undefined ? busPath : resolveLink(busPath, link);
        e = { dir, controller: host.readText(`${dir}/type`)?.trim() === CONTROLLER_TYPE };
        this.devices.set(hctl, e);
        reads += 2;
      }
      if (e.controller) {
        parts.push(hctl);
        deviceStates.push('');
        continue;
      }
      const state = this.readState(e);
      reads++;
      // Gone (ENODEV on a kept file), or a name reused by a new device (re-login on a reused host
      // number): resolved afresh next tick.
      if (state === undefined) this.forgetDevice(hctl);
      parts.push(hctl, state ?? '-');
      deviceStates.push(state ?? '-');
      const h = Number(hctl.slice(0, hctl.indexOf(':')));
      allRunning.set(h, state === 'running\n' && allRunning.get(h) !== false);
    }
    parts.push('|');
    const sessions = host.readDir(ISCSI_SESSION_CLASS);
    forgetAbsent(this.sessionDirs, sessions);
    for (const name of sessions) {
      let e = this.sessionDirs.get(name);
      if (!e) {
        const classPath = `${ISCSI_SESSION_CLASS}/${name}`;
        const link = host.readLink(classPath);
        const m = link === undefined ? null : SESSION_HOST.exec(link);
        reads++;
        // Unresolvable (vanished, odd layout): not cached, its state read through the class path.
        if (m && link !== undefined) {
          e = { host: Number(m[1]), dir: resolveLink(classPath, link) };
          this.sessionDirs.set(name, e);
        }
      }
      sessionHosts.push(e?.host);
      if (e && allRunning.get(e.host) === true) {
        parts.push(name);
        sessionStates.push('');
        continue;
      }
      const state = host.readText(`${e?.dir ?? `${ISCSI_SESSION_CLASS}/${name}`}/state`);
      if (state === undefined) this.sessionDirs.delete(name);
      parts.push(name, state ?? '-');
      sessionStates.push(state ?? '-');
      reads++;
    }
    parts.push('|');
    const blocks = host.readDir(BLOCK_CLASS);
    for (const b of blocks) parts.push(b);
    return {
      fingerprint: parts.join('\n'),
      sessions: sessions.length,
      devices: hctls.length,
      reads,
      detail: { hctls, deviceStates, sessions, sessionStates, sessionHosts, blocks },
    };
  }
}

function forgetAbsent<V>(cache: Map<string, V>, present: readonly string[]): void {
  if (cache.size === 0) return;
  const now = new Set(present);
  for (const k of cache.keys()) if (!now.has(k)) cache.delete(k);
}
