import { HostIoError } from '../../engine/host/host.js';
import type { Clock } from '../clock.js';
import type { Tree } from '../tree.js';
import type { LunSpec, Portal, SdevState, SimDmMap, SimLoop, SimScsiDevice, SimSession } from '../types.js';
import {
  DM_MAJOR,
  kernelLunFromTgt,
  mpathName,
  multipathWwid,
  sdIndex as parseSdIndex,
  samePortal,
  sdDevt,
  sdName,
  tgtWwid,
} from './names.js';
import { SYSFS_WRITE_PATTERNS } from './paths.js';
import type { SysfsWriter } from './sysfs-writer.js';
import type { Udev } from './udev.js';

/** What changed in the simulated kernel (for watchers measuring change→event latency). */
export interface SimChange {
  kind: 'session' | 'device' | 'multipath' | 'loop' | 'mount' | 'kubelet' | 'node-db';
  what: string;
  at: number;
}

interface LoginParams {
  iqn: string;
  portal: Portal;
  tpgt: number;
  iface: string;
  initiatorName: string;
  recoveryTmo: number;
  scan: 'auto' | 'manual';
  luns: readonly LunSpec[];
  /** The target's id on the SAN, for LUN 0's wwid. */
  tid: number;
  chapUser?: string;
  chapUserIn?: string;
}

/** A resolved block device: an sd disk (or its partition), a dm map or a loop device. */
export type BlockRef =
  | { kind: 'sd'; name: string; session: SimSession; device: SimScsiDevice; partition?: number }
  | { kind: 'dm'; name: string; map: SimDmMap }
  | { kind: 'loop'; name: string; loop: SimLoop };

/**
 * The simulated kernel: scsi_transport_iscsi sessions (sid monotonic, never reused), one SCSI host
 * per session (lowest free number, reused after logout), SCSI scans and device states, sd naming,
 * replacement_timeout after a lost connection, device-mapper multipath maps (made by multipathd
 * when two paths share a WWID) and loop devices. Every change is materialised through SysfsWriter
 * and Udev at once, so reads see the same tree a real node would show.
 */
export class Kernel {
  readonly sessions = new Map<number, SimSession>();
  readonly maps = new Map<number, SimDmMap>();
  readonly loops = new Map<number, SimLoop>();
  /** multipathd running: paths sharing a WWID get a map. */
  multipathd = true;
  /** Bulk materialisation (scale scenario): multipath is reconciled once at the end. */
  deferMultipath = false;
  private nextSid = 1;
  private readonly sdInUse = new Set<number>();
  /** Lowest sd index that may be free: allocation resumes here instead of at 0 (1,000s of paths). */
  private sdHint = 0;
  /** Sessions by SCSI host number (one host per session): the host ida and host→session lookups. */
  private readonly byHost = new Map<number, SimSession>();
  private hostHint = 0;
  /** sd paths by name, kept in step with scans and removals (lookups without walking every session). */
  private readonly sdByName = new Map<string, { session: SimSession; device: SimScsiDevice }>();
  /** dm maps by multipath WWID, and the friendly names in use (multipathd's bindings). */
  private readonly mapByWwid = new Map<string, SimDmMap>();
  private readonly mapNames = new Set<string>();
  private mapMinorHint = 0;
  private mapNameHint = 0;
  private readonly listeners = new Set<(c: SimChange) => void>();
  private localPortSeed = 52612;

  constructor(
    private readonly tree: Tree,
    private readonly sysfs: SysfsWriter,
    private readonly udev: Udev,
    private readonly clock: Clock,
  ) {}

  onChange(listener: (c: SimChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(kind: SimChange['kind'], what: string): void {
    const c = { kind, what, at: this.clock.now() };
    for (const l of this.listeners) l(c);
  }

  /**
   * Lowest free SCSI host number: the kernel's ida hands freed numbers out again. Every number below
   * the hint is taken, so the search starts there (a freed number lowers the hint).
   */
  private freeHost(): number {
    let h = this.hostHint;
    while (this.byHost.has(h)) h++;
    this.hostHint = h + 1;
    return h;
  }

  /** Lowest free sd index (sd.c's ida, like host numbers). */
  private allocSd(): number {
    let i = this.sdHint;
    while (this.sdInUse.has(i)) i++;
    this.sdInUse.add(i);
    this.sdHint = i + 1;
    return i;
  }

  private freeSd(i: number): void {
    this.sdInUse.delete(i);
    if (i < this.sdHint) this.sdHint = i;
  }

  /** The session owning a SCSI host number (`hostN` in sysfs paths). */
  sessionOnHost(host: number): SimSession | undefined {
    return this.byHost.get(host);
  }

  /** The sd path with this name (`sdb`), if present. */
  sdDevice(name: string): { session: SimSession; device: SimScsiDevice } | undefined {
    return this.sdByName.get(name);
  }

  /** A completed iSCSI login: session, connection and host appear; `auto` scan finds every LUN. */
  login(p: LoginParams): SimSession {
    const s: SimSession = {
      sid: this.nextSid++,
      host: this.freeHost(),
      iqn: p.iqn,
      portal: { ...p.portal },
      tpgt: p.tpgt,
      iface: p.iface,
      initiatorName: p.initiatorName,
      localAddress: localAddressFor(p.portal.address),
      localPort: this.nextLocalPort(),
      state: 'LOGGED_IN',
      recoveryTmo: p.recoveryTmo,
      scan: p.scan,
      devices: new Map(),
      ...(p.chapUser ? { chapUser: p.chapUser } : {}),
      ...(p.chapUserIn ? { chapUserIn: p.chapUserIn } : {}),
    };
    sessionLuns.set(s, { luns: p.luns, tid: p.tid });
    this.sessions.set(s.sid, s);
    this.byHost.set(s.host, s);
    this.sysfs.session(s);
    // open-iscsi's auto scan writes "- - -" to the host's scan file (iscsi_sysfs_scan_host).
    if (s.scan === 'auto') this.scanSession(s, undefined);
    this.emit('session', `login sid ${s.sid}`);
    return s;
  }

  private nextLocalPort(): number {
    this.localPortSeed = 32768 + ((this.localPortSeed * 7 + 1237) % 28000);
    return this.localPortSeed;
  }

  /**
   * Scan a session's target: one kernel LUN number (targeted "0 0 L") or all (wildcard, REPORT
   * LUNS incl. LUN 0). Devices are keyed and named (H:C:T:L, by-path) by the kernel's number.
   */
  scanSession(s: SimSession, lun: number | undefined): void {
    const info = sessionLuns.get(s);
    if (!info) return;
    const wanted: { lun: number; spec: LunSpec; type: number; wwid: string }[] = [];
    const controller: LunSpec = { lun: 0, sizeBytes: 0 };
    if (lun === undefined || lun === 0) {
      wanted.push({ lun: 0, spec: controller, type: 12, wwid: tgtWwid(info.tid, 0) });
    }
    // `lun` is the kernel's number (what `0 0 L` carries, int_to_scsilun'd back into the 8 bytes
    // sent to the target): tgt answers only the field it reported, so `0 0 300` finds nothing.
    for (const spec of info.luns) {
      const k = kernelLunFromTgt(spec.lun);
      if (lun === undefined || k === lun) wanted.push({ lun: k, spec, type: 0, wwid: spec.wwid! });
    }
    for (const w of wanted) {
      if (s.devices.has(w.lun)) continue;
      const d: SimScsiDevice = {
        host: s.host,
        lun: w.lun,
        type: w.type,
        state: s.state === 'LOGGED_IN' ? 'running' : 'blocked',
        spec: w.spec,
        wwid: w.wwid,
        partitions: w.spec.partitions ?? 0,
        ...(w.type === 0 ? { sdIndex: this.allocSd() } : {}),
      };
      s.devices.set(d.lun, d);
      if (d.sdIndex !== undefined) this.sdByName.set(sdName(d.sdIndex), { session: s, device: d });
      this.sysfs.scsiDevice(s, d);
      if (d.sdIndex !== undefined) this.udev.disk(sdName(d.sdIndex), s.portal, s.iqn, d.lun, d.partitions);
      this.writeSdDb(d);
      this.emit('device', `add ${s.host}:0:0:${d.lun}`);
    }
    this.reconcileMultipath();
  }

  /** Re-reads a device after its LUN changed (a new partition table): sysfs and udev catch up. */
  rematerialise(s: SimSession, d: SimScsiDevice): void {
    this.sysfs.scsiDevice(s, d);
    if (d.sdIndex !== undefined) this.udev.disk(sdName(d.sdIndex), s.portal, s.iqn, d.lun, d.partitions);
    this.writeSdDb(d);
    this.emit('device', `change ${s.host}:0:0:${d.lun}`);
  }

  /** The kernel drops a SCSI device (delete attribute, logout). */
  removeDevice(s: SimSession, d: SimScsiDevice): void {
    if (d.sdIndex !== undefined) {
      const name = sdName(d.sdIndex);
      for (const m of this.maps.values()) {
        if (m.slaves.includes(name)) {
          // multipathd drops the path from the map; the map itself stays (flush_on_last_del no).
          m.slaves = m.slaves.filter((x) => x !== name);
          this.sysfs.removeDmSlave(m, name);
        }
      }
      this.udev.removeDisk(name, s.portal, s.iqn, d.lun, d.partitions);
      const t = sdDevt(d.sdIndex);
      for (let p = 0; p <= d.partitions; p++) this.udev.removeDb(`${t.major}:${t.minor + p}`);
      this.sdByName.delete(name);
      this.freeSd(d.sdIndex);
    }
    this.sysfs.removeScsiDevice(s, d);
    s.devices.delete(d.lun);
    this.emit('device', `remove ${s.host}:0:0:${d.lun}`);
  }

  /** Logout: devices removed, session, connection and host gone; the host number becomes free. */
  logout(s: SimSession): void {
    s.recoveryTimer?.();
    for (const d of [...s.devices.values()]) this.removeDevice(s, d);
    this.sysfs.removeSession(s);
    this.sessions.delete(s.sid);
    this.byHost.delete(s.host);
    if (s.host < this.hostHint) this.hostHint = s.host;
    this.emit('session', `logout sid ${s.sid}`);
  }

  /** Connection lost: FAILED, devices blocked; after recovery_tmo FREE and transport-offline. */
  failSession(s: SimSession): void {
    if (s.state !== 'LOGGED_IN') return;
    s.state = 'FAILED';
    this.sysfs.sessionState(s);
    this.setAllDevices(s, 'blocked');
    this.emit('session', `failed sid ${s.sid}`);
    s.recoveryTimer = this.clock.setTimer(s.recoveryTmo * 1000, () => {
      s.recoveryTimer = undefined;
      if (!this.sessions.has(s.sid) || s.state !== 'FAILED') return;
      s.state = 'FREE';
      this.sysfs.sessionState(s);
      this.setAllDevices(s, 'transport-offline');
      this.emit('session', `recovery timeout sid ${s.sid}`);
    });
  }

  /** iscsid re-established the connection: LOGGED_IN, devices running again. */
  recoverSession(s: SimSession): void {
    if (s.state === 'LOGGED_IN') return;
    s.recoveryTimer?.();
    s.recoveryTimer = undefined;
    s.state = 'LOGGED_IN';
    this.sysfs.sessionState(s);
    for (const d of s.devices.values()) {
      if (d.state === 'blocked' || d.state === 'transport-offline') this.setDeviceState(s, d, 'running');
    }
    this.emit('session', `recovered sid ${s.sid}`);
  }

  private setAllDevices(s: SimSession, state: SdevState): void {
    for (const d of s.devices.values()) {
      if (d.state !== 'offline') this.setDeviceState(s, d, state);
    }
  }

  setDeviceState(s: SimSession, d: SimScsiDevice, state: SdevState): void {
    d.state = state;
    this.sysfs.deviceState(s, d);
    this.emit('device', `state ${s.host}:0:0:${d.lun} ${state}`);
  }

  /**
   * A write to a sysfs attribute, at its canonical path. Answers like the kernel: EINVAL for bad
   * input, EBUSY for a scripted busy delete, ENODEV/ENOENT when the object is gone.
   */
  writeSysfs(path: string, data: string): void {
    const scan = SYSFS_WRITE_PATTERNS.scan.exec(path);
    if (scan) {
      this.writeScan(path, Number(scan[1]), data);
      return;
    }
    const sdev = SYSFS_WRITE_PATTERNS.sdev.exec(path);
    if (sdev) {
      this.writeSdev(path, Number(sdev[2]), Number(sdev[3]), sdev[4]!, data);
      return;
    }
    const tmo = SYSFS_WRITE_PATTERNS.recoveryTmo.exec(path);
    if (tmo) {
      const s = this.sessions.get(Number(tmo[1]));
      const v = Number(data.trim());
      if (!s) throw new HostIoError('write', path, 'ENODEV');
      if (!Number.isInteger(v) || v < 0) throw new HostIoError('write', path, 'EINVAL');
      s.recoveryTmo = v;
      this.sysfs.attr(path, String(v));
      return;
    }
    if (!this.tree.exists(path)) throw new HostIoError('write', path, 'ENOENT');
    throw new HostIoError('write', path, 'EACCES');
  }

  private writeScan(path: string, host: number, data: string): void {
    const s = this.byHost.get(host);
    if (!s) throw new HostIoError('write', path, 'ENODEV');
    // drivers/scsi/scsi_sysfs.c scsi_scan: sscanf("%10s %10s %16s"), "-" is a wildcard; iSCSI has channel 0, id 0.
    const parts = data.trim().split(/\s+/);
    if (parts.length !== 3) throw new HostIoError('write', path, 'EINVAL');
    const [ch, id, lun] = parts as [string, string, string];
    const num = (x: string) => (x === '-' ? -1 : /^\d+$/.test(x) ? Number(x) : Number.NaN);
    if ([ch, id, lun].some((x) => Number.isNaN(num(x)))) throw new HostIoError('write', path, 'EINVAL');
    if ((num(ch) > 0 || num(id) > 0) && ch !== '-' && id !== '-') return; // no such channel/target: nothing found
    if (s.state !== 'LOGGED_IN') return; // a blocked host finds nothing new
    this.scanSession(s, lun === '-' ? undefined : num(lun));
  }

  private writeSdev(path: string, sid: number, lun: number, attr: string, data: string): void {
    const s = this.sessions.get(sid);
    const d = s?.devices.get(lun);
    if (!s || !d) throw new HostIoError('write', path, 'ENODEV');
    const v = data.trim();
    switch (attr) {
      case 'delete':
        if (d.deleteBusy) throw new HostIoError('write', path, 'EBUSY');
        this.removeDevice(s, d);
        this.reconcileMultipath();
        return;
      case 'state':
        // scsi_sysfs.c store_state_field matches a state name followed by '\n' and accepts only
        // running/offline: `running` without the newline is EINVAL on a real 6.1 kernel (seen in e2e).
        if (data !== 'running\n' && data !== 'offline\n') throw new HostIoError('write', path, 'EINVAL');
        if (v === 'running' && (d.state === 'blocked' || s.state !== 'LOGGED_IN')) {
          throw new HostIoError('write', path, 'EINVAL');
        }
        this.setDeviceState(s, d, v === 'running' ? 'running' : 'offline');
        return;
      case 'rescan':
        return;
      default:
        if (!/^\d+$/.test(v)) throw new HostIoError('write', path, 'EINVAL');
        this.sysfs.attr(path, v);
    }
  }

  /** Every sd path of the node, by name, in session then LUN-scan order (a fresh map). */
  sdDevices(): Map<string, { session: SimSession; device: SimScsiDevice }> {
    const out = new Map<string, { session: SimSession; device: SimScsiDevice }>();
    for (const s of this.sessions.values()) {
      for (const d of s.devices.values()) {
        if (d.sdIndex !== undefined) out.set(sdName(d.sdIndex), { session: s, device: d });
      }
    }
    return out;
  }

  /** Resolves `/dev/...` (any symlink) to the kernel object behind it. */
  resolveBlock(devPath: string): BlockRef | undefined {
    const real = this.tree.realpath(devPath);
    if (!real?.startsWith('/dev/')) return undefined;
    const name = real.slice(5);
    const dm = /^dm-(\d+)$/.exec(name);
    if (dm) {
      const map = this.maps.get(Number(dm[1]));
      return map ? { kind: 'dm', name, map } : undefined;
    }
    const loop = /^loop(\d+)$/.exec(name);
    if (loop) {
      const l = this.loops.get(Number(loop[1]));
      return l ? { kind: 'loop', name, loop: l } : undefined;
    }
    const part = /^(sd[a-z]+)(\d+)?$/.exec(name);
    if (!part || parseSdIndex(part[1]!) === undefined) return undefined;
    const hit = this.sdByName.get(part[1]!);
    if (!hit) return undefined;
    const p = part[2] ? Number(part[2]) : undefined;
    if (p !== undefined && p > hit.device.partitions) return undefined;
    return { kind: 'sd', name, session: hit.session, device: hit.device, ...(p ? { partition: p } : {}) };
  }

  /** multipathd: a map for every WWID with two or more sd paths; new paths join existing maps. */
  reconcileMultipath(): void {
    if (!this.multipathd || this.deferMultipath) return;
    const byWwid = new Map<string, string[]>();
    const specs = new Map<string, LunSpec>();
    for (const [name, { device }] of this.sdDevices()) {
      const w = multipathWwid(device.wwid);
      byWwid.set(w, [...(byWwid.get(w) ?? []), name]);
      specs.set(w, device.spec);
    }
    for (const [wwid, paths] of byWwid) {
      const existing = this.mapByWwid.get(wwid);
      if (existing) {
        for (const p of paths) if (!existing.slaves.includes(p)) this.addSlave(existing, p);
        continue;
      }
      if (paths.length < 2) continue;
      this.createMap(wwid, paths, specs.get(wwid)!);
    }
  }

  private createMap(wwid: string, paths: string[], spec: LunSpec): SimDmMap {
    // Lowest free minor and friendly name, as the kernel's ida and multipathd's bindings hand them out.
    let minor = this.mapMinorHint;
    while (this.maps.has(minor)) minor++;
    this.mapMinorHint = minor + 1;
    let n = this.mapNameHint;
    while (this.mapNames.has(mpathName(n))) n++;
    this.mapNameHint = n + 1;
    const map: SimDmMap = { minor, name: mpathName(n), wwid, sizeBytes: spec.sizeBytes, slaves: [], spec };
    this.maps.set(minor, map);
    this.mapByWwid.set(wwid, map);
    this.mapNames.add(map.name);
    this.sysfs.dm(map, new Map());
    this.udev.dm(minor, map.name, wwid);
    this.writeDmDb(map);
    for (const p of paths) this.addSlave(map, p);
    this.emit('multipath', `create ${map.name}`);
    return map;
  }

  private addSlave(map: SimDmMap, sd: string): void {
    const hit = this.sdByName.get(sd);
    if (!hit) return;
    map.slaves.push(sd);
    this.sysfs.dmSlave(map, sd, this.sysfs.sdBlockDir(hit.session, hit.device));
    this.writeSdDb(hit.device);
    // multipathd applies fast_io_fail_tmo (multipath-tools default 5) to an iSCSI path it adopts as
    // the session's recovery_tmo: the two-portal capture shows 5 on both multipathed sessions
    // (mp-sysfs.txt) where the single-path one keeps iscsid.conf's 120 (single-sysfs.txt). Only the
    // kernel value changes; the node record keeps its replacement_timeout.
    const s = hit.session;
    if (s.recoveryTmo !== MULTIPATH_RECOVERY_TMO) {
      s.recoveryTmo = MULTIPATH_RECOVERY_TMO;
      this.sysfs.recoveryTmo(s);
    }
  }

  /** `multipath -f`: removes the map (callers check it is unused first). */
  removeMap(map: SimDmMap): void {
    const dirs = new Map<string, string>();
    for (const sd of map.slaves) {
      const hit = this.sdByName.get(sd);
      if (hit) dirs.set(sd, this.sysfs.sdBlockDir(hit.session, hit.device));
    }
    this.sysfs.removeDm(map, dirs);
    this.udev.removeDm(map.minor, map.name, map.wwid);
    this.udev.removeDb(`${DM_MAJOR}:${map.minor}`);
    this.maps.delete(map.minor);
    this.mapByWwid.delete(map.wwid);
    // Its paths are plain disks again: udev re-probes them.
    for (const sd of map.slaves) {
      const hit = this.sdByName.get(sd);
      if (hit) this.writeSdDb(hit.device);
    }
    this.mapNames.delete(map.name);
    if (map.minor < this.mapMinorHint) this.mapMinorHint = map.minor;
    // Names are not numbered by minor: the next search starts from the first name again.
    this.mapNameHint = 0;
    this.emit('multipath', `remove ${map.name}`);
  }

  /** `losetup -f <file>`: lowest free loop minor. */
  attachLoop(backingFile: string, sizeBytes: number): SimLoop {
    let minor = 0;
    while (this.loops.has(minor)) minor++;
    const l = { minor, backingFile };
    this.loops.set(minor, l);
    this.sysfs.loop(l, sizeBytes);
    this.udev.loop(minor);
    this.emit('loop', `attach loop${minor}`);
    return l;
  }

  detachLoop(l: SimLoop): void {
    this.sysfs.removeLoop(l);
    this.loops.delete(l.minor);
    this.emit('loop', `detach loop${l.minor}`);
  }

  /** Size of a block device in bytes. */
  sizeOf(ref: BlockRef): number {
    if (ref.kind === 'dm') return ref.map.sizeBytes;
    if (ref.kind === 'loop') return this.resolveSizeOfFile(ref.loop.backingFile);
    return ref.device.spec.sizeBytes;
  }

  private resolveSizeOfFile(path: string): number {
    const ref = path.startsWith('/dev/') ? this.resolveBlock(path) : undefined;
    return ref && ref.kind !== 'loop' ? this.sizeOf(ref) : 0;
  }

  /**
   * udev's database record of an sd path and its partitions (Udev.db): a multipath path is an
   * `mpath_member` (multipath-tools' udev rules, lsblk in mp-lsblk-J-O.txt), else the LUN's filesystem.
   */
  private writeSdDb(d: SimScsiDevice): void {
    if (d.sdIndex === undefined) return;
    const name = sdName(d.sdIndex);
    const t = sdDevt(d.sdIndex);
    const member = this.mapByWwid.get(multipathWwid(d.wwid))?.slaves.includes(name) ?? false;
    this.udev.db(
      `${t.major}:${t.minor}`,
      [
        ['DEVNAME', `/dev/${name}`],
        ['DEVTYPE', 'disk'],
        ['ID_SERIAL', multipathWwid(d.wwid)],
        ['DM_MULTIPATH_DEVICE_PATH', member ? '1' : '0'],
      ],
      member ? { type: 'mpath_member' } : d.spec.fs,
    );
    for (let p = 1; p <= d.partitions; p++) {
      this.udev.db(`${t.major}:${t.minor + p}`, [
        ['DEVNAME', `/dev/${name}${p}`],
        ['DEVTYPE', 'partition'],
      ]);
    }
  }

  private writeDmDb(map: SimDmMap): void {
    this.udev.db(
      `${DM_MAJOR}:${map.minor}`,
      [
        ['DEVNAME', `/dev/dm-${map.minor}`],
        ['DEVTYPE', 'disk'],
        ['DM_NAME', map.name],
        ['DM_UUID', `mpath-${map.wwid}`],
        ['DM_SUSPENDED', '0'],
        ['MPATH_DEVICE_READY', '1'],
      ],
      map.spec.fs,
    );
  }

  /** A filesystem was made on the LUN behind `spec` (mkfs): udev's blkid re-probes its devices. */
  fsChanged(spec: LunSpec): void {
    for (const { device } of this.sdByName.values()) if (device.spec === spec) this.writeSdDb(device);
    for (const m of this.maps.values()) if (m.spec === spec) this.writeDmDb(m);
  }

  /** The LUN spec (filesystem holder) behind a block device, if any. */
  specOf(ref: BlockRef): LunSpec | undefined {
    if (ref.kind === 'dm') return ref.map.spec;
    if (ref.kind === 'sd') return ref.device.spec;
    return undefined;
  }

  findSessions(pred: (s: SimSession) => boolean): SimSession[] {
    return [...this.sessions.values()].filter(pred).sort((a, b) => a.sid - b.sid);
  }

  sessionsOnPortal(p: Portal): SimSession[] {
    return this.findSessions((s) => samePortal(s.portal, p));
  }
}

/** recovery_tmo multipathd sets on the sessions of the paths it adds to a map (mp-sysfs.txt). */
const MULTIPATH_RECOVERY_TMO = 5;

/** LUNs a session's target exports, looked up by the scan code. */
const sessionLuns = new WeakMap<SimSession, { luns: readonly LunSpec[]; tid: number }>();

/** The initiator's local address towards a portal (loopback targets answer from 127.0.0.1, as in the lab). */
function localAddressFor(address: string): string {
  if (address.startsWith('127.')) return '127.0.0.1';
  if (address.includes(':')) return address === '::1' ? '::1' : 'fd00:10::5';
  return '10.0.0.5';
}
