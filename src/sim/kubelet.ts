import { HostIoError } from '../engine/host/host.js';
import { portalOf } from './kernel/names.js';
import type { SimHost } from './sim-host.js';
import type { ChapSecret } from './types.js';

export const KUBELET_ROOT = '/var/lib/kubelet';
const PLUGIN = `${KUBELET_ROOT}/plugins/kubernetes.io/iscsi`;

export interface KubeletAttachOptions {
  /** Target portal first, then spec.portals (`addr:port`; kubelet appends :3260 when missing). */
  portals: string[];
  iqn: string;
  lun: number;
  /** PV (or inline volume) name. */
  volName: string;
  /** Pods using the volume; each gets its bind mount (filesystem) or device node (block). */
  podUIDs: string[];
  mode?: 'filesystem' | 'block';
  fsType?: string;
  iface?: string;
  readOnly?: boolean;
  chapDiscovery?: ChapSecret;
  chapSession?: ChapSecret;
}

export interface KubeletVolumeState {
  opts: KubeletAttachOptions;
  /** globalPDPath (filesystem) or global map path (block). */
  globalPath: string;
  devicePath: string;
  pods: Set<string>;
}

/** Fails an attach/detach step like kubelet's error string would. */
class KubeletError extends Error {}

/** kubelet's `portalMounter`: no colon → append :3260. */
function portalMounter(p: string): string {
  return p.includes(':') ? p : `${p}:3260`;
}

/**
 * A simulated kubelet in-tree iSCSI plugin (docs/kubelet-iscsi.md): attaches with the
 * same iscsiadm calls, targeted LUN scan, iscsi.json written before the mount (so it ends up hidden
 * under it), pod bind mounts, block-mode loop devices; detaches with DetachDisk /
 * DetachBlockISCSIDisk including isSessionBusy. It acts only through the Host seam, like a process.
 */
export class Kubelet {
  readonly volumes = new Map<string, KubeletVolumeState>();

  constructor(private readonly host: SimHost) {}

  private async iscsiadm(
    args: string[],
    secrets: string[] = [],
  ): Promise<{ code: number | null; out: string }> {
    const r = await this.host.run(['iscsiadm', ...args], { secrets });
    return { code: r.exitCode, out: r.stdout + r.stderr };
  }

  private async run(argv: string[]): Promise<{ code: number | null; out: string }> {
    const r = await this.host.run(argv);
    return { code: r.exitCode, out: r.stdout + r.stderr };
  }

  /** GetISCSIPortalHostMapForTarget (docs/kubelet-iscsi.md#portal-host-map): portal → SCSI host number, from sysfs. */
  portalHostMap(iqn: string): Map<string, number> {
    const map = new Map<string, number>();
    for (const h of this.host.readDir('/sys/class/iscsi_host')) {
      const n = Number(h.replace('host', ''));
      for (const sess of this.host.readDir(`/sys/class/iscsi_host/${h}/device`)) {
        if (!sess.startsWith('session')) continue;
        const base = `/sys/class/iscsi_host/${h}/device/${sess}`;
        if (this.host.readText(`${base}/iscsi_session/${sess}/targetname`)?.trim() !== iqn) continue;
        for (const c of this.host.readDir(base)) {
          if (!c.startsWith('connection')) continue;
          const cd = `${base}/${c}/iscsi_connection/${c}`;
          const vals = ['address', 'port', 'persistent_address', 'persistent_port'].map((f) =>
            this.host.readText(`${cd}/${f}`)?.trim(),
          );
          if (vals.some((v) => v === undefined)) continue;
          const [a, p, pa, pp] = vals as string[];
          for (const [addr, port] of [
            [a, p],
            [pa, pp],
          ] as const) {
            map.set(`${addr}:${port}`, n);
            if (addr!.includes(':')) map.set(`[${addr}]:${port}`, n);
          }
        }
      }
    }
    return map;
  }

  globalPath(o: KubeletAttachOptions): string {
    const portal = portalMounter(o.portals[0]!);
    const name = `${portal}-${o.iqn}-lun-${o.lun}`;
    const iface = o.iface ?? 'default';
    return o.mode === 'block'
      ? `${PLUGIN}/volumeDevices/iface-${iface}/${name}`
      : `${PLUGIN}/iface-${iface}/${name}`;
  }

  /** WaitForAttach → AttachDisk, MountDevice and SetUp for every pod. */
  async attach(o: KubeletAttachOptions): Promise<KubeletVolumeState> {
    const iface = o.iface ?? 'default';
    const portals = o.portals.map(portalMounter);
    const show = await this.iscsiadm(['-m', 'iface', '-I', iface, '-o', 'show']);
    if (show.code !== 0) throw new KubeletError(`iscsi: could not read iface ${iface} error: ${show.out}`);
    const devices: string[] = [];
    let lastErr = '';
    for (const tp of portals) {
      if (!this.portalHostMap(o.iqn).has(tp)) {
        const d = ['-m', 'discoverydb', '-t', 'sendtargets', '-p', tp, '-I', iface];
        await this.iscsiadm([...d, '-o', 'new']);
        if (o.chapDiscovery) await this.chapUpdates(d, 'discovery.sendtargets.auth', o.chapDiscovery);
        const disc = await this.iscsiadm([...d, '--discover']);
        if (disc.code !== 0) {
          await this.iscsiadm([...d, '-o', 'delete']);
          lastErr = `iscsi: failed to sendtargets to portal ${tp} output: ${disc.out}, err exit status ${disc.code}`;
          continue;
        }
        const n = ['-m', 'node', '-p', tp, '-T', o.iqn, '-I', iface];
        await this.iscsiadm([...n, '-o', 'update', '-n', 'node.session.scan', '-v', 'manual']);
        if (o.chapSession) await this.chapUpdates(n, 'node.session.auth', o.chapSession);
        const login = await this.iscsiadm([...n, '--login']);
        if (login.code !== 0) {
          await this.iscsiadm(['-m', 'node', '-p', tp, '-I', iface, '-T', o.iqn, '-o', 'delete']);
          lastErr = `iscsi: failed to attach disk: Error: ${login.out}`;
          continue;
        }
        await this.iscsiadm([
          '-m',
          'node',
          '-p',
          tp,
          '-T',
          o.iqn,
          '-o',
          'update',
          '-n',
          'node.startup',
          '-v',
          'manual',
        ]);
      }
      const host = this.portalHostMap(o.iqn).get(tp);
      if (host === undefined) continue;
      // scanOneLun (docs/kubelet-iscsi.md#targeted-lun-scan): "0 0 <lun>", no newline.
      this.host.writeText(`/sys/class/scsi_host/host${host}/scan`, `0 0 ${o.lun}`);
      // kubelet AttachDisk builds `...-lun-<Lun>` in decimal whatever the LUN (iscsi_util.go).
      const p = portalOf(tp);
      const path = `/dev/disk/by-path/ip-${p.address}:${p.port}-iscsi-${o.iqn}-lun-${o.lun}`;
      if (this.host.stat(path) === undefined) {
        lastErr = `Timed out waiting for device at path ${path} after 30s`;
        continue;
      }
      devices.push(path);
    }
    if (devices.length === 0)
      throw new KubeletError(`failed to get any path for iscsi disk, last err seen:\n${lastErr}`);
    let devicePath = devices[0]!;
    if (portals.length > 1) {
      const sd = this.host.readLink(devicePath)?.split('/').pop();
      const dm = this.host
        .readDir('/sys/block')
        .find((b) => b.startsWith('dm-') && sd && this.host.lstat(`/sys/block/${b}/slaves/${sd}`));
      if (dm) devicePath = `/dev/${dm}`;
    }
    const state: KubeletVolumeState = {
      opts: { ...o, iface, portals },
      globalPath: this.globalPath(o),
      devicePath,
      pods: new Set(),
    };
    this.persist(state);
    if (o.mode === 'block') {
      for (const pod of o.podUIDs) await this.mapBlock(state, pod);
    } else {
      await this.mountDevice(state);
      for (const pod of o.podUIDs) await this.setUp(state, pod);
    }
    this.volumes.set(state.globalPath, state);
    return state;
  }

  private async chapUpdates(base: string[], prefix: string, c: ChapSecret): Promise<void> {
    await this.iscsiadm([...base, '-o', 'update', '-n', `${prefix}.authmethod`, '-v', 'CHAP']);
    const pairs: [string, string | undefined][] = [
      ['username', c.username],
      ['password', c.password],
      ['username_in', c.usernameIn],
      ['password_in', c.passwordIn],
    ];
    for (const [k, v] of pairs) {
      if (v) await this.iscsiadm([...base, '-o', 'update', '-n', `${prefix}.${k}`, '-v', v], [v]);
    }
  }

  /** persistISCSI (docs/kubelet-iscsi.md#iscsijson): iscsi.json in the global dir, written before MountDevice. */
  private persist(v: KubeletVolumeState): void {
    this.host.mkdir(v.globalPath, 0o750);
    if (this.isMountPoint(v.globalPath)) return;
    const o = v.opts;
    const json = {
      VolName: o.volName,
      Portals: o.portals,
      Iqn: o.iqn,
      Lun: String(o.lun),
      InitIface: o.iface,
      Iface: o.iface,
      InitiatorName: '',
      MetricsProvider: null,
    };
    this.host.writeText(`${v.globalPath}/iscsi.json`, `${JSON.stringify(json)}\n`, 0o644);
  }

  private isMountPoint(path: string): boolean {
    return this.host.sim.mounts.find(path) !== undefined;
  }

  /** MountDevice: SafeFormatAndMount (docs/kubelet-iscsi.md#format-and-mount). */
  /**
   * MountDevice and SetUp of a filesystem volume whose sessions are already logged in and whose
   * device is known (a scenario that logged in through the kernel model, as `scale` does): what
   * `attach` does after AttachDisk, without its discovery, login and by-path wait.
   */
  async mountLoggedIn(o: KubeletAttachOptions, devicePath: string): Promise<KubeletVolumeState> {
    const state: KubeletVolumeState = {
      opts: { ...o, iface: o.iface ?? 'default', portals: o.portals.map(portalMounter) },
      globalPath: this.globalPath(o),
      devicePath,
      pods: new Set(),
    };
    this.persist(state);
    await this.mountDevice(state);
    for (const pod of o.podUIDs) await this.setUp(state, pod);
    this.volumes.set(state.globalPath, state);
    return state;
  }

  private async mountDevice(v: KubeletVolumeState): Promise<void> {
    if (this.isMountPoint(v.globalPath)) return;
    const fsType = v.opts.fsType ?? 'ext4';
    const probe = await this.run(['blkid', '-p', '-s', 'TYPE', '-s', 'PTTYPE', '-o', 'export', v.devicePath]);
    if (probe.code === 2) {
      const args = fsType.startsWith('ext')
        ? ['-F', '-m0', v.devicePath]
        : fsType === 'xfs'
          ? ['-f', v.devicePath]
          : [v.devicePath];
      const mk = await this.run([`mkfs.${fsType}`, ...args]);
      if (mk.code !== 0) throw new KubeletError(`format of disk ${v.devicePath} failed: ${mk.out}`);
    } else if (probe.code !== 0) {
      throw new KubeletError(`blkid failed on ${v.devicePath}: ${probe.out}`);
    } else if (!v.opts.readOnly) {
      await this.run(['fsck', '-a', v.devicePath]);
    }
    const opts = v.opts.readOnly ? 'ro,defaults' : 'defaults';
    const m = await this.run(['mount', '-t', fsType, '-o', opts, v.devicePath, v.globalPath]);
    if (m.code !== 0) throw new KubeletError(`mount failed: ${m.out}`);
  }

  podVolumeDir(pod: string, volName: string, block = false): string {
    return `${KUBELET_ROOT}/pods/${pod}/${block ? 'volumeDevices' : 'volumes'}/kubernetes.io~iscsi/${volName}`;
  }

  /** SetUp → diskSetUp: the pod's bind mount of the global mount (docs/kubelet-iscsi.md#call-sequence). */
  private async setUp(v: KubeletVolumeState, pod: string): Promise<void> {
    const dir = this.podVolumeDir(pod, v.opts.volName);
    this.host.mkdir(dir, 0o750);
    const m = await this.run(['mount', '-o', v.opts.readOnly ? 'bind,ro' : 'bind', v.globalPath, dir]);
    if (m.code !== 0) throw new KubeletError(`bind mount failed: ${m.out}`);
    v.pods.add(pod);
  }

  /** Block volume: device bind-mounted on `<globalMapPath>/<podUID>`, held by a loop device. */
  private async mapBlock(v: KubeletVolumeState, pod: string): Promise<void> {
    const node = `${v.globalPath}/${pod}`;
    this.host.writeText(node, '', 0o640);
    const m = await this.run(['mount', '--bind', v.devicePath, node]);
    if (m.code !== 0) throw new KubeletError(`bind mount failed: ${m.out}`);
    await this.run(['losetup', '-f', '--show', node]);
    const podDir = this.podVolumeDir(pod, v.opts.volName, true);
    const parent = podDir.slice(0, podDir.lastIndexOf('/'));
    this.host.mkdir(parent, 0o750);
    this.host.sim.tree.link(podDir, this.host.sim.tree.realpath(v.devicePath) ?? v.devicePath);
    v.pods.add(pod);
  }

  /**
   * Pod teardown, then — when no pod is left — UnmountDevice/DetachDisk (filesystem) or
   * DetachBlockISCSIDisk (block). `podUIDs` defaults to every pod of the volume.
   */
  async detach(globalPath: string, podUIDs?: string[]): Promise<void> {
    const v = await this.tearDownPods(globalPath, podUIDs);
    if (v.pods.size > 0) return;
    if (v.opts.mode === 'block') await this.detachBlock(v);
    else await this.detachDisk(v);
    this.volumes.delete(globalPath);
  }

  /** A detach whose logout never ran (iscsiadm timed out, kubelet restarted): dirs gone, session stays. */
  async detachLeavingSession(globalPath: string): Promise<void> {
    await this.crashAfterUnmount(globalPath);
    this.removeAll(globalPath);
  }

  /** The pod is gone and kubelet died right after UnmountDevice's umount: the global dir stays behind. */
  async crashAfterUnmount(globalPath: string): Promise<void> {
    await this.tearDownPods(globalPath);
    if (this.isMountPoint(globalPath)) await this.run(['umount', globalPath]);
    this.volumes.delete(globalPath);
  }

  /** The volume at `globalPath` with `podUIDs` (default: every pod of it) torn down. */
  private async tearDownPods(globalPath: string, podUIDs?: string[]): Promise<KubeletVolumeState> {
    const v = this.volumes.get(globalPath);
    if (!v) throw new KubeletError(`no kubelet volume at ${globalPath}`);
    for (const pod of podUIDs ?? [...v.pods]) await this.tearDownPod(v, pod);
    return v;
  }

  /** The pod goes away: its bind mount (or loop + device node) and its volume dir. */
  async tearDownPod(v: KubeletVolumeState, pod: string): Promise<void> {
    if (v.opts.mode === 'block') {
      const node = `${v.globalPath}/${pod}`;
      const j = await this.run(['losetup', '-j', node]);
      for (const line of j.out.split('\n').filter(Boolean))
        await this.run(['losetup', '-d', line.split(':')[0]!]);
      await this.run(['umount', node]);
      this.host.unlink(node);
      this.host.unlink(this.podVolumeDir(pod, v.opts.volName, true));
    } else {
      const dir = this.podVolumeDir(pod, v.opts.volName);
      await this.run(['umount', dir]);
      this.host.rmdir(dir);
    }
    v.pods.delete(pod);
  }

  /** isSessionBusy / getVolCount (docs/kubelet-iscsi.md#issessionbusy): counts `<portal>-<iqn>*` dirs in both plugin trees. */
  isSessionBusy(portal: string, iqn: string): boolean {
    const count = (dir: string) => {
      let n = 0;
      for (const sub of this.host.readDir(dir)) {
        if (sub === 'volumeDevices' || this.host.stat(`${dir}/${sub}`) !== 'dir') continue;
        n += this.host.readDir(`${dir}/${sub}`).filter((e) => e.startsWith(`${portal}-${iqn}`)).length;
      }
      return n;
    };
    return count(PLUGIN) + count(`${PLUGIN}/volumeDevices`) > 1;
  }

  /** DetachDisk (docs/kubelet-iscsi.md#detachdisk): umount, iscsi.json, deleteDevices, isSessionBusy, logout + node delete. */
  private async detachDisk(v: KubeletVolumeState): Promise<void> {
    const mnt = v.globalPath;
    if (this.isMountPoint(mnt)) {
      const u = await this.run(['umount', mnt]);
      if (u.code !== 0) throw new KubeletError(`umount ${mnt} failed: ${u.out}`);
    }
    const saved = this.loadIscsiJson(mnt) ?? v.opts;
    await this.deleteDevices(saved.iqn, saved.lun);
    await this.logoutUnlessBusy(saved.portals, saved.iqn, saved.iface ?? 'default');
    this.removeAll(mnt);
  }

  private async detachBlock(v: KubeletVolumeState): Promise<void> {
    const saved = this.loadIscsiJson(v.globalPath) ?? v.opts;
    await this.logoutUnlessBusy(saved.portals, saved.iqn, saved.iface ?? 'default');
    this.removeAll(v.globalPath);
  }

  private loadIscsiJson(
    dir: string,
  ): { portals: string[]; iqn: string; lun: number; iface?: string } | undefined {
    const text = this.host.readText(`${dir}/iscsi.json`);
    if (!text) return undefined;
    try {
      const j = JSON.parse(text) as { Portals: string[]; Iqn: string; Lun: string; Iface?: string };
      return { portals: j.Portals, iqn: j.Iqn, lun: Number(j.Lun), ...(j.Iface ? { iface: j.Iface } : {}) };
    } catch {
      return undefined;
    }
  }

  /** deleteDevices (docs/kubelet-iscsi.md#device-deletion): multipath -f for each map, then `1` > delete for each sd. */
  private async deleteDevices(iqn: string, lun: number): Promise<void> {
    const sds: string[] = [];
    for (const h of this.host.readDir('/sys/class/iscsi_host')) {
      const n = h.replace('host', '');
      for (const sess of this.host.readDir(`/sys/class/iscsi_host/${h}/device`)) {
        if (!sess.startsWith('session')) continue;
        const base = `/sys/class/iscsi_host/${h}/device/${sess}`;
        if (this.host.readText(`${base}/iscsi_session/${sess}/targetname`)?.trim() !== iqn) continue;
        const blk = this.host.readDir(`${base}/target${n}:0:0/${n}:0:0:${lun}/block`)[0];
        if (blk) sds.push(blk);
      }
    }
    const dms = new Set<string>();
    for (const sd of sds) for (const dm of this.host.readDir(`/sys/block/${sd}/holders`)) dms.add(dm);
    for (const dm of dms) await this.run(['multipath', '-f', `/dev/${dm}`]);
    for (const sd of sds) {
      try {
        this.host.writeText(`/sys/block/${sd}/device/delete`, '1');
      } catch (e) {
        if (!(e instanceof HostIoError) || e.code !== 'ENOENT') continue;
      }
    }
  }

  private async logoutUnlessBusy(portals: string[], iqn: string, iface: string): Promise<void> {
    if (this.isSessionBusy(portals[0]!, iqn)) return;
    for (const p of [...new Set(portals)]) {
      const out = await this.iscsiadm(['-m', 'node', '-p', p, '-T', iqn, '--logout', '-I', iface]);
      if (out.code !== 0 && out.code !== 21 && out.code !== 2)
        throw new KubeletError(`iscsi: failed to detach disk Error: ${out.out}`);
      const del = await this.iscsiadm(['-m', 'node', '-p', p, '-T', iqn, '-o', 'delete', '-I', iface]);
      if (del.code !== 0 && del.code !== 21 && del.code !== 2)
        throw new KubeletError(`iscsi: failed to delete node record Error: ${del.out}`);
    }
  }

  /** os.RemoveAll of the global dir (only ever this volume's own directory). */
  private removeAll(dir: string): void {
    if (!dir.startsWith(`${PLUGIN}/`)) throw new KubeletError(`refusing to remove ${dir}`);
    this.host.sim.tree.remove(dir);
  }
}
