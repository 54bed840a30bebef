/**
 * The cheap sysfs poll. sysfs attribute values are computed on read: no inotify event, and size
 * (4096) and mtime never move, so neither chokidar mode sees them (docs/architecture.md#sysfs-is-polled-not-watched, checked
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
 * An idle tick is then three directory listings (the scsi_device class, not the bus) and one pread
 * per disk: a listing equal to the last one reuses last tick's per-device entries (no filtering, no
 * lookups), and no fingerprint string is built (the watcher compares the lists: bench/README.md, ~20 % of
 * the tick’s CPU at 1,000 sessions).
 */
import type { FileReader, Host } from '../engine/host/host.js';
import { resolveLink } from '../engine/host/path.js';
import { ISCSI_SESSION_CLASS } from '../engine/snapshot/sessions.js';

/** Every SCSI bus device (`H:C:T:L`, hosts, targets) links here, straight to its device dir. */
export const SCSI_BUS_DEVICES = '/sys/bus/scsi/devices';
/**
 * Every SCSI device (`H:C:T:L` only; controllers too) has a class device here: scsi_sysfs_add_sdev
 * adds `sdev_dev` for each sdev and __scsi_remove_device removes it first (drivers/scsi/scsi_sysfs.c).
 * The tick lists this instead of the bus: the bus also lists every host and target, 7,000 names
 * instead of 5,000 at 1,000 sessions × 4 LUNs, and that listing was the tick's largest cost (bench/README.md).
 */
export const SCSI_DEVICE_CLASS = '/sys/class/scsi_device';
export const BLOCK_CLASS = '/sys/block';
const HCTL = /^\d+:\d+:\d+:\d+$/;
/** `../../devices/platform/host3/session3/iscsi_session/session3` → 3 (captures single-sysfs.json). */
const SESSION_HOST = /\/host(\d+)\/session\d+\//;
const CONTROLLER_TYPE = '12';

export interface SysfsProbe {
  /**
   * Changes whenever a session, SCSI device or block device appears, goes, or changes state.
   * Built on first use only: the watcher compares `detail` lists instead (sameProbe, probe-diff.ts),
   * which costs no 100 KB string per tick at 1,000 sessions (bench/README.md).
   */
  readonly fingerprint: string;
  sessions: number;
  devices: number;
  /** Files read, directories listed and links resolved (for the benchmark). */
  reads: number;
  /** What the fingerprint is made of, so a change can be traced to sessions (probe-diff.ts). */
  detail: ProbeDetail;
}

/** The fingerprint's parts as parallel lists, in listing order. */
export interface ProbeDetail {
  /** `H:C:T:L` entries of the scsi_device class (the SCSI bus devices without hosts and targets). */
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
  /**
   * The device's own dir (the bus link resolved once: no symlink walk per tick); '' once `reader`
   * is open, which is all a tick reads then (an entry whose reader fails is forgotten and resolved
   * afresh): ~80 bytes less per disk for the console's lifetime.
   */
  dir: string;
  /** SCSI host number (`H` of `H:C:T:L`), parsed once. */
  host: number;
  controller: boolean;
  /**
   * `state` kept open when the host can (one pread per tick instead of open/fstat/read/close).
   * Declared from the start: a field added later puts each entry's fields in a second object.
   */
  reader: FileReader | undefined;
}

/**
 * Open `state` files kept at most. Node raises its soft fd limit to the hard one at start; 4,096
 * stays far below common hard limits (systemd: 524,288) while covering 1,000 sessions × 4 LUNs.
 */
export const DEFAULT_READER_BUDGET = 4_096;

/**
 * Reads per slice of a sliced pass: ~1–2 ms of pread(2) and bookkeeping on a quiet machine, so a
 * scrape waits for at most one slice, not the ~4,000-read pass of a 1,000 × 4 node.
 */
export const PROBE_SLICE_READS = 256;

/** One turn of the event loop: pending I/O callbacks (an incoming request) run before it resolves. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface SessionEntry {
  /** SCSI host number the session owns (software iSCSI: one host per session). */
  host: number;
  /** The session's `state` attribute, its dir resolved once. */
  statePath: string;
}

/** Probes sysfs cheaply; keeps small per-name caches between ticks (create one per watcher). */
export class SysfsProber {
  private readonly devices = new Map<string, DeviceEntry>();
  private readonly sessionDirs = new Map<string, SessionEntry>();
  private readers = 0;
  private closed = false;

  constructor(
    private readonly host: Host,
    private readonly readerBudget = DEFAULT_READER_BUDGET,
  ) {}

  /** Closes the kept-open files; a sliced pass in progress ends at its next slice point. */
  close(): void {
    this.closed = true;
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
      if (e.reader) {
        this.readers++;
        e.dir = '';
      }
    }
    return e.reader ? e.reader.read() : this.host.readText(`${e.dir}/state`);
  }

  /** The last scsi_device class listing and its device entries (parallel to its `H:C:T:L` names). */
  private lastBus: string[] = [];
  private lastHctls: string[] = [];
  private lastEntries: DeviceEntry[] = [];
  private lastSessions: string[] = [];
  /**
   * Per SCSI host, this pass's number while every disk on it read so far is running, minus it once
   * one is not (another pass's number: no disk this pass). Updated in place, never cleared: a
   * cleared Map allocates a new table each tick, which outlives the young generation (the Map is
   * old) and piled up as garbage in the old one until a full collection (serve's steady RSS).
   */
  private readonly hostRunning = new Map<number, number>();
  private passNumber = 0;

  /**
   * The class's `H:C:T:L` names and their entries. An unchanged listing (the idle case) reuses the
   * last ones: no filtering, no per-name lookups, no forgetting.
   */
  private deviceEntries(bus: string[]): { hctls: string[]; entries: DeviceEntry[] } {
    if (sameList(bus, this.lastBus) && this.lastEntries.length === this.lastHctls.length) {
      return { hctls: this.lastHctls, entries: this.lastEntries };
    }
    const hctls = bus.filter((n) => HCTL.test(n));
    forgetAbsent(this.devices, hctls, (hctl) => this.forgetDevice(hctl));
    const entries: DeviceEntry[] = [];
    this.lastBus = bus;
    this.lastHctls = hctls;
    this.lastEntries = entries;
    return { hctls, entries };
  }

  private lastDetail: ProbeDetail | undefined;

  /**
   * The pass's lists, each one equal to last pass's replaced by last pass's array (the idle case:
   * all of them). The new arrays and strings then die young: a probe the watcher keeps for a tick
   * or more is referenced from the old generation, so its lists outlived the young one, ~0.3 MiB a
   * minute at 50 sessions of garbage in the old one until a full collection (serve's steady RSS).
   * The watcher's own comparison (sameList) then ends at the identity check.
   */
  private keptDetail(next: ProbeDetail): ProbeDetail {
    const last = this.lastDetail;
    if (!last) {
      this.lastDetail = next;
      return next;
    }
    const detail: ProbeDetail = {
      hctls: keptList(next.hctls, last.hctls),
      deviceStates: keptList(next.deviceStates, last.deviceStates),
      sessions: keptList(next.sessions, last.sessions),
      sessionStates: keptList(next.sessionStates, last.sessionStates),
      sessionHosts: keptList(next.sessionHosts, last.sessionHosts),
      blocks: keptList(next.blocks, last.blocks),
    };
    const unchanged = (Object.keys(detail) as (keyof ProbeDetail)[]).every((k) => detail[k] === last[k]);
    if (unchanged) return last;
    this.lastDetail = detail;
    return detail;
  }

  /** One pass, all at once (tests, benchmarks). Missing entries (a logout mid-read) are data, not errors. */
  probe(): SysfsProbe {
    const pass = this.pass(Number.POSITIVE_INFINITY);
    for (;;) {
      const step = pass.next();
      if (step.done) return step.value;
    }
  }

  /**
   * The same pass in slices of at most `sliceReads` reads, each run from its own turn of the event
   * loop (`turn`), so a server on the same loop answers between slices instead of waiting for the
   * whole pass (~30 ms of synchronous reads at 1,000 sessions × 4 LUNs, longer on a loaded machine:
   * bench/README.md "serve"). Resolves undefined when `close()` came between two slices. One pass
   * at a time: the caller serialises (poll-pipeline.ts), since a pass keeps its place in the caches.
   */
  async probeSliced(
    sliceReads = PROBE_SLICE_READS,
    turn: () => Promise<void> = nextTurn,
  ): Promise<SysfsProbe | undefined> {
    const pass = this.pass(sliceReads);
    for (;;) {
      const step = pass.next();
      if (step.done) return step.value;
      await turn();
      if (this.closed) return undefined;
    }
  }

  /**
   * The pass itself: a slice point after each of the first two directory listings and before the
   * third (each listing is a slice of its own), and after every `sliceReads` entries in between.
   */
  private *pass(sliceReads: number): Generator<void, SysfsProbe> {
    const host = this.host;
    let reads = 3;
    let slice = 0;
    // The bus when the class lists nothing: no devices at all, or a tree without the class (the
    // simulator's lean profile, a hand-made --root fixture).
    let listed = host.readDir(SCSI_DEVICE_CLASS);
    if (listed.length === 0) {
      listed = host.readDir(SCSI_BUS_DEVICES);
      reads++;
    }
    // A listing of ~5,000 names is a slice of its own (~1–2 ms): so is each of the three below.
    yield;
    const { hctls, entries } = this.deviceEntries(listed);
    const fresh = entries.length !== hctls.length;
    const deviceStates: string[] = new Array(hctls.length);
    const sessionStates: string[] = [];
    const sessionHosts: (number | undefined)[] = [];
    // Per SCSI host: `pass` while every disk on it is running (the session's state is then implied).
    const hostRunning = this.hostRunning;
    const pass = ++this.passNumber;
    let forgot = false;
    for (let i = 0; i < hctls.length; i++) {
      if (++slice >= sliceReads) {
        slice = 0;
        yield;
      }
      const hctl = hctls[i]!;
      let e = fresh ? this.devices.get(hctl) : entries[i];
      if (!e) {
        const busPath = `${SCSI_BUS_DEVICES}/${hctl}`;
        const link = host.readLink(busPath);
        const dir = link === undefined ? busPath : resolveLink(busPath, link);
        e = {
          dir,
          host: Number(hctl.slice(0, hctl.indexOf(':'))),
          controller: host.readText(`${dir}/type`)?.trim() === CONTROLLER_TYPE,
          reader: undefined,
        };
        this.devices.set(hctl, e);
        reads += 2;
      }
      if (fresh) entries.push(e);
      if (e.controller) {
        deviceStates[i] = '';
        continue;
      }
      const state = this.readState(e);
      reads++;
      // Gone (ENODEV on a kept file), or a name reused by a new device (re-login on a reused host
      // number): resolved afresh next tick.
      if (state === undefined) {
        this.forgetDevice(hctl);
        forgot = true;
      }
      deviceStates[i] = state ?? '-';
      const h = e.host;
      if (hostRunning.get(h) !== -pass) hostRunning.set(h, state === 'running\n' ? pass : -pass);
    }
    // Hosts with no disk any more: dropped when the listing moved (an idle tick keeps the same keys).
    if (fresh) for (const [h, n] of hostRunning) if (n !== pass && n !== -pass) hostRunning.delete(h);
    // A forgotten entry must not be reused from the kept list next tick.
    if (forgot) this.lastBus = [];
    const sessions = host.readDir(ISCSI_SESSION_CLASS);
    if (!sameList(sessions, this.lastSessions)) {
      forgetAbsent(this.sessionDirs, sessions);
      this.lastSessions = sessions;
    }
    slice = 0;
    yield;
    for (const name of sessions) {
      if (++slice >= sliceReads) {
        slice = 0;
        yield;
      }
      let e = this.sessionDirs.get(name);
      if (!e) {
        const classPath = `${ISCSI_SESSION_CLASS}/${name}`;
        const link = host.readLink(classPath);
        const m = link === undefined ? null : SESSION_HOST.exec(link);
        reads++;
        // Unresolvable (vanished, odd layout): not cached, its state read through the class path.
        if (m && link !== undefined) {
          e = { host: Number(m[1]), statePath: `${resolveLink(classPath, link)}/state` };
          this.sessionDirs.set(name, e);
        }
      }
      sessionHosts.push(e?.host);
      if (e && hostRunning.get(e.host) === pass) {
        sessionStates.push('');
        continue;
      }
      const state = host.readText(e?.statePath ?? `${ISCSI_SESSION_CLASS}/${name}/state`);
      if (state === undefined) this.sessionDirs.delete(name);
      sessionStates.push(state ?? '-');
      reads++;
    }
    yield;
    const blocks = host.readDir(BLOCK_CLASS);
    const detail = this.keptDetail({ hctls, deviceStates, sessions, sessionStates, sessionHosts, blocks });
    let fingerprint: string | undefined;
    return {
      get fingerprint() {
        fingerprint ??= fingerprintOf(detail);
        return fingerprint;
      },
      sessions: sessions.length,
      devices: hctls.length,
      reads,
      detail,
    };
  }
}

/** The probe as one string (see SysfsProbe.fingerprint): names and states, in listing order. */
export function fingerprintOf(d: ProbeDetail): string {
  const parts: string[] = [];
  d.hctls.forEach((hctl, i) => {
    const st = d.deviceStates[i]!;
    if (st === '') parts.push(hctl);
    else parts.push(hctl, st);
  });
  parts.push('|');
  d.sessions.forEach((name, i) => {
    const st = d.sessionStates[i]!;
    if (st === '') parts.push(name);
    else parts.push(name, st);
  });
  parts.push('|', ...d.blocks);
  return parts.join('\n');
}

/** `last` when it lists the same as `next`: the array that is kept, so `next` dies young. */
function keptList<T>(next: T[], last: T[]): T[] {
  return sameList(next, last) ? last : next;
}

/** Element-wise equality of two listings (the same order: one kernel dir read twice). */
export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function forgetAbsent<V>(
  cache: Map<string, V>,
  present: readonly string[],
  forget: (k: string) => void = (k) => cache.delete(k),
): void {
  if (cache.size === 0) return;
  const now = new Set(present);
  for (const k of [...cache.keys()]) if (!now.has(k)) forget(k);
}
