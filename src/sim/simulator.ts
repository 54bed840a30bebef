import * as fs from 'node:fs';
import type { RunOptions, RunResult, TcpConnectResult } from '../engine/host/host.js';
import { maskSecrets } from '../engine/host/host.js';
import { formatPortal } from '../engine/iscsi/portal.js';
import { type Clock, createClock } from './clock.js';
import type { SimNode, ToolResult } from './context.js';
import { Faults } from './faults.js';
import { NodeDb } from './iscsid/node-db.js';
import { Kernel, type SimChange } from './kernel/kernel.js';
import { MountTable } from './kernel/mounts.js';
import { portalOf } from './kernel/names.js';
import { type SysfsProfile, SysfsWriter } from './kernel/sysfs-writer.js';
import { Udev } from './kernel/udev.js';
import { KUBELET_ROOT, Kubelet, type KubeletAttachOptions, type KubeletVolumeState } from './kubelet.js';
import {
  DAEMONS,
  type DaemonName,
  writeDaemon,
  writeNodeFiles,
  writePod,
  writeUnixSockets,
} from './node-files.js';
import { San } from './san.js';
import { SimHost } from './sim-host.js';
import { devtOf } from './tools/block.js';
import { runTool } from './tools/index.js';
import { Tree } from './tree.js';
import type { SdevState, SimScsiDevice, SimSession, TargetSpec } from './types.js';

interface SimulatorOptions {
  /** Directory holding `root/` (the node tree) and `state/` (what mounts hide). */
  dir: string;
  clock: 'real' | 'manual';
  seed: number;
  hostname?: string;
  initiatorName?: string;
  /** sysfs detail: `full` (default, conformance-checked) or `lean` (only what is read; scale). */
  profile?: SysfsProfile;
}

/** The simulated node's initiator name, shaped like the captures' lab one (test/fixtures/captures/README.md). */
const DEFAULT_INITIATOR = 'iqn.1993-08.org.debian:01:simnode0001';

/**
 * The simulated node's control API: the SAN (targets, portals going down), kernel faults, daemons,
 * the clock, and change notifications. Tools run through `run()`; the engine reads the tree.
 */
export class Simulator implements SimNode {
  readonly tree: Tree;
  readonly kernel: Kernel;
  readonly db: NodeDb;
  readonly san = new San();
  readonly mounts: MountTable;
  readonly faults = new Faults();
  readonly clock: Clock;
  readonly daemons = { iscsid: true, multipathd: true };
  readonly seed: number;
  readonly hostname: string;
  /** The node's kubelet (in-tree iSCSI plugin), acting through its own Host like a process. */
  readonly kubelet: Kubelet;

  constructor(o: SimulatorOptions) {
    const root = `${o.dir}/root`;
    fs.mkdirSync(root, { recursive: true });
    this.tree = new Tree(root);
    this.seed = o.seed;
    this.hostname = o.hostname ?? 'sim-node-1';
    this.clock = createClock(o.clock);
    this.bootedAt = this.clock.now();
    const sysfs = new SysfsWriter(this.tree, DAEMONS.iscsid.pid, o.profile ?? 'full');
    const udev = new Udev(this.tree);
    writeNodeFiles(this.tree, this.hostname);
    // btime: what dates a kernel log record (usec since boot) on a real node, /proc/stat.
    this.tree.file('/proc/stat', `btime ${Math.floor(this.bootedAt / 1000)}\n`);
    sysfs.base();
    udev.base();
    this.kernel = new Kernel(this.tree, sysfs, udev, this.clock);
    this.db = new NodeDb(this.tree, o.initiatorName ?? DEFAULT_INITIATOR, {
      startup: 'automatic',
      replacementTimeout: 120,
      scan: 'auto',
    });
    this.db.base();
    this.mounts = new MountTable(this.tree, `${o.dir}/state`);
    this.mountsChanged();
    for (const d of Object.keys(DAEMONS) as DaemonName[]) writeDaemon(this.tree, d, true);
    writeUnixSockets(this.tree, this.daemons);
    this.kubelet = new Kubelet(new SimHost(this));
  }

  /** kubelet attaches a volume (WaitForAttach, MountDevice, SetUp per pod / block map). */
  kubeletAttach(o: KubeletAttachOptions): Promise<KubeletVolumeState> {
    return this.kubelet.attach(o);
  }

  /** kubelet tears pods down and, when none is left, detaches (DetachDisk / DetachBlockISCSIDisk). */
  kubeletDetach(globalPath: string, podUIDs?: string[]): Promise<void> {
    return this.kubelet.detach(globalPath, podUIDs);
  }

  get root(): string {
    return this.tree.root;
  }

  /** While set, mounts are not written to /proc until it is cleared (a scenario mounting thousands). */
  deferMountWrites = false;

  mountsChanged(): void {
    if (this.deferMountWrites) return;
    this.mounts.write();
    this.kernel.emit('mount', 'mountinfo');
  }

  /** Subscribes to every change of the simulated node; returns the unsubscribe function. */
  onChange(listener: (c: SimChange) => void): () => void {
    return this.kernel.onChange(listener);
  }

  /** kubelet runs pod `namespace/name` (UID `uid`): its log dir and etc-hosts appear (writePod). */
  startPod(uid: string, name: string, namespace = 'default'): string {
    writePod(this.tree, KUBELET_ROOT, uid, name, namespace);
    return uid;
  }

  /** Manual clock: moves time forward (recovery timers fire). */
  advance(ms: number): void {
    this.clock.advance(ms);
  }

  // --- the SAN -------------------------------------------------------------------------------

  addTarget(t: TargetSpec): TargetSpec {
    return this.san.add(t);
  }

  /** Every session on the portal loses its connection (FAILED, devices blocked; FREE after recovery_tmo). */
  portalDown(portal: string): void {
    const p = portalOf(portal);
    this.san.setDown(p, true);
    for (const s of this.kernel.sessionsOnPortal(p)) this.kernel.failSession(s);
  }

  /** A TCP connect from the node to `address:port`, as the SAN answers it (Host.connectTcp). */
  connectTcp(address: string, port: number): TcpConnectResult {
    const p = portalOf(formatPortal(address, port));
    return this.san.acceptsTcp(p)
      ? { outcome: 'connected', durationMs: 0 }
      : { outcome: 'failed', code: 'ECONNREFUSED', durationMs: 0 };
  }

  /**
   * The portal's listener accepts connections but its iSCSI layer is broken: `silent` never
   * answers (SendTargets hangs), `drops` closes each connection at once; undefined heals it.
   * Existing sessions are not touched (see `sessionStuck` for a session that stays down).
   */
  portalBroken(portal: string, how: 'silent' | 'drops' | undefined): void {
    this.san.setBroken(portalOf(portal), how);
  }

  /**
   * One session loses its connection and stays FAILED while its portal keeps answering: the
   * stuck session of trident#1138 / open-iscsi#387 (its recovery never completes). iscsid does not
   * bring it back on its own here; `portalUp` or a logout/login does.
   */
  sessionStuck(sid: number): void {
    const s = this.kernel.sessions.get(sid);
    if (!s) throw new Error(`no such session: ${sid}`);
    this.kernel.failSession(s);
  }

  /** When the simulated node booted (ms, its clock). */
  readonly bootedAt: number;

  /** The kernel log as `/dev/kmsg` records (`pri,seq,usec,flags;message`), oldest first. */
  readonly kmsg: string[] = [];

  /** Appends a kernel log record at the simulated clock (usec since the simulated boot). */
  logKernel(message: string, level = 3): void {
    const usec = Math.max(0, this.clock.now() - this.bootedAt) * 1000;
    this.kmsg.push(`${level},${this.kmsg.length},${usec},-;${message}`);
  }

  /**
   * The ext4 on `device` (`sdc`, `dm-0`) met an I/O error (a target gone past replacement_timeout):
   * the kernel counts it in the superblock (`/sys/fs/ext4/<dev>/errors_count`, first/last error
   * time and function) and, with `errors=remount-ro`, logs "Remounting filesystem read-only" and
   * stops writes. `oldKernel`: also sets SB_RDONLY, so mountinfo's superblock options read `ro`
   * (kernels before ext4_handle_error stopped doing so). `remount: false` leaves only the record.
   */
  fsError(device: string, o: { remount?: boolean; oldKernel?: boolean; func?: string } = {}): void {
    const dir = `/sys/fs/ext4/${device}`;
    const now = Math.floor(this.clock.now() / 1000);
    const count = Number(this.tree.read(`${dir}/errors_count`) ?? '0') + 1;
    const first = Number(this.tree.read(`${dir}/first_error_time`) ?? '0') || now;
    this.tree.dir(dir);
    this.tree.file(`${dir}/errors_count`, `${count}\n`);
    this.tree.file(`${dir}/first_error_time`, `${first}\n`);
    this.tree.file(`${dir}/last_error_time`, `${now}\n`);
    this.tree.file(`${dir}/last_error_func`, `${o.func ?? 'ext4_journal_check_start'}\n`);
    this.logKernel(
      `EXT4-fs error (device ${device}): ${o.func ?? 'ext4_journal_check_start'}:84: Detected aborted journal`,
    );
    if (o.remount === false) return;
    this.logKernel(`EXT4-fs (${device}): Remounting filesystem read-only`, 2);
    if (o.oldKernel) {
      const ref = this.kernel.resolveBlock(`/dev/${device}`);
      const devt = ref ? devtOf(ref) : undefined;
      for (const m of this.mounts.mounts)
        if (m.devt === devt) m.superOptions = m.superOptions.replace(/^rw\b/, 'ro');
      this.mountsChanged();
    }
  }

  /** The portal answers again: iscsid reconnects its sessions (LOGGED_IN, devices running). */
  portalUp(portal: string): void {
    const p = portalOf(portal);
    this.san.setDown(p, false);
    if (!this.daemons.iscsid) return;
    for (const s of this.kernel.sessionsOnPortal(p)) this.kernel.recoverSession(s);
  }

  // --- kernel faults -------------------------------------------------------------------------

  private sd(name: string): { session: SimSession; device: SimScsiDevice } {
    const hit = this.kernel.sdDevice(name.replace(/^\/dev\//, ''));
    if (!hit) throw new Error(`no such sd device: ${name}`);
    return hit;
  }

  /** One path fails (its I/O errors out): multipath shows it failed faulty. */
  pathFail(sd: string, state: SdevState = 'transport-offline'): void {
    const { session, device } = this.sd(sd);
    this.kernel.setDeviceState(session, device, state);
  }

  /** `echo offline > /sys/block/sdX/device/state`, done by someone else. */
  deviceOffline(sd: string): void {
    this.pathFail(sd, 'offline');
  }

  /** A GPT with `count` partitions on the LUN behind an sd disk (sdX1..): sysfs dirs and /dev nodes. */
  partition(sd: string, count: number): void {
    const { session, device } = this.sd(sd);
    device.spec.partitions = count;
    device.spec.fs = undefined;
    device.partitions = count;
    this.kernel.rematerialise(session, device);
  }

  /** `swapon` of a device (a partition of an iSCSI disk): it shows in /proc/swaps, not in mountinfo. */
  swapOn(devPath: string): void {
    const ref = this.kernel.resolveBlock(devPath);
    if (!ref) throw new Error(`no such block device: ${devPath}`);
    const sizeKb = Math.floor(
      this.kernel.sizeOf(ref) / 1024 / (ref.kind === 'sd' && ref.partition ? ref.device.partitions : 1),
    );
    this.mounts.swaps.push({ path: `/dev/${ref.name}`, sizeKb });
    this.mountsChanged();
  }

  /** Writing 1 to this device's delete attribute answers EBUSY. */
  deleteBusy(sd: string, busy = true): void {
    this.sd(sd).device.deleteBusy = busy;
  }

  /** The session disappears the next time anything reads its sysfs directory. */
  vanishOnRead(sid: number): void {
    this.faults.vanishOnRead.add(sid);
  }

  /** Called by SimHost before every read: fires armed vanish faults. */
  beforeRead(path: string): void {
    if (this.faults.vanishOnRead.size === 0) return;
    const m = /(?:session|connection)(\d+)/.exec(path);
    const sid = m ? Number(m[1]) : undefined;
    if (sid === undefined || !this.faults.vanishOnRead.has(sid)) return;
    this.faults.vanishOnRead.delete(sid);
    const s = this.kernel.sessions.get(sid);
    if (s) this.kernel.logout(s);
  }

  /**
   * The kernel refuses to read a connection's current address while it is down (ENOTCONN:
   * docs/iscsiadm.md#sysfs); persistent_address/port still read.
   */
  readError(path: string): string | undefined {
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (base !== 'address' && base !== 'port' && base !== 'local_port' && base !== 'ipaddress')
      return undefined;
    const conn = /connection(\d+):\d+/.exec(path);
    const host = conn ? undefined : /iscsi_host\/host(\d+)/.exec(path);
    let s: SimSession | undefined;
    if (conn) s = this.kernel.sessions.get(Number(conn[1]));
    else if (host) s = this.kernel.sessionOnHost(Number(host[1]));
    else return undefined;
    return s && s.state !== 'LOGGED_IN' ? 'ENOTCONN' : undefined;
  }

  // --- daemons -------------------------------------------------------------------------------

  stopDaemon(name: 'iscsid' | 'multipathd'): void {
    this.daemons[name] = false;
    if (name === 'multipathd') this.kernel.multipathd = false;
    writeDaemon(this.tree, name, false);
    writeUnixSockets(this.tree, this.daemons);
  }

  startDaemon(name: 'iscsid' | 'multipathd'): void {
    this.daemons[name] = true;
    writeDaemon(this.tree, name, true);
    writeUnixSockets(this.tree, this.daemons);
    if (name === 'iscsid') {
      // iscsid reconnects every failed session whose portal answers again.
      for (const s of this.kernel.findSessions(
        (x) => x.state !== 'LOGGED_IN' && !this.san.isDown(x.portal),
      )) {
        this.kernel.recoverSession(s);
      }
    }
    if (name === 'multipathd') {
      this.kernel.multipathd = true;
      this.kernel.reconcileMultipath();
    }
  }

  // --- commands ------------------------------------------------------------------------------

  /**
   * Runs a simulated program in-process with the RunResult shape of the real runner: argv masked,
   * exit codes as data, timeouts (default 30 s) and cancels honoured, ENOENT for unknown programs.
   */
  async run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const started = this.clock.now();
    const secrets = options.secrets;
    const shown = argv.map((a) => maskSecrets(a, secrets));
    const finish = (r: Partial<RunResult>): RunResult => ({
      argv: shown,
      exitCode: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      durationMs: this.clock.now() - started,
      ...r,
      ...(r.stdout ? { stdout: maskSecrets(r.stdout, secrets) } : {}),
      ...(r.stderr ? { stderr: maskSecrets(r.stderr, secrets) } : {}),
    });
    const timeoutMs = options.timeoutMs ?? 30_000;
    const wait = async (ms: number): Promise<'done' | 'timeout' | 'aborted'> => {
      const limit = Math.min(ms, timeoutMs);
      try {
        await this.clock.sleep(limit, options.signal);
      } catch {
        return 'aborted';
      }
      return ms > timeoutMs ? 'timeout' : 'done';
    };
    if (options.signal?.aborted) return finish({});
    const delay = this.faults.delayFor(argv);
    const hung = this.faults.isHung(argv);
    if (hung || delay > 0) {
      const r = await wait(hung ? Number.POSITIVE_INFINITY : delay);
      if (r === 'timeout') return finish({ timedOut: true });
      if (r === 'aborted') return finish({});
    }
    const scripted = this.faults.scripted(argv);
    let result: ToolResult | undefined = scripted
      ? { exitCode: scripted.exitCode, stdout: scripted.stdout ?? '', stderr: scripted.stderr ?? '' }
      : runTool(this, argv);
    if (!result) return finish({ spawnError: 'ENOENT' });
    if ('hang' in result) {
      const r = await wait(Number.POSITIVE_INFINITY);
      result = undefined;
      return finish(r === 'timeout' ? { timedOut: true } : {});
    }
    return finish(result);
  }
}
