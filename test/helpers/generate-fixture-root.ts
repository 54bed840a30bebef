import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Writes a fixture root of N iSCSI sessions × L LUNs in the layout of the real captures
 * (test/fixtures/captures/{single,mp}-sysfs.json, kernel 6.1): the same /sys paths, the kernel's
 * relative symlinks and attribute formats (`\n`-terminated, space-padded INQUIRY vendor/model,
 * `(null)` for unset strings, sizes in 512-byte sectors), tgt's LUN 0 controller on every target,
 * sd names and dev numbers as sd.c allocates them, and dm-N multipath maps for the multipath half.
 * Half the sessions are single-path (one target each); the other half come in pairs of portals to
 * one target, each LUN then having a multipath map over both paths. With `kubelet`, every target
 * LUN gets a kubelet FS global dir with iscsi.json, and every other one is mounted with a pod.
 * Used by the snapshot tests and the benchmark (bench/README.md).
 */
export interface GenerateOptions {
  sessions: number;
  /** Data LUNs per target (LUN 1..L); LUN 0 is tgt's controller, as in the captures. */
  luns: number;
  /** Also write the kubelet tree, mountinfo with kubelet mounts, and pods (default true). */
  kubelet?: boolean;
  kubeletRoot?: string;
  /**
   * The first `csi` volumes are CSI volumes instead of in-tree ones (docs/csi-drivers.md): kubelet's
   * staging dir and pod publish dir with vol_data.json, mounted for every other one, and the driver's
   * own file — csi-driver-iscsi's connector for even volumes, Trident's tracking file for odd ones.
   */
  csi?: number;
}

export interface GeneratedRoot {
  root: string;
  sessions: number;
  /** Block devices (sd) written. */
  disks: number;
  /** SCSI devices including LUN 0 controllers. */
  scsiDevices: number;
  multipathMaps: number;
  kubeletVolumes: number;
  mountedVolumes: number;
  targets: number;
}

const IQN_PREFIX = 'iqn.2024-01.lab.example:scale';
const INITIATOR = 'iqn.1993-08.org.debian:01:labguest0001';

/** sd.c `sd_format_disk_name`: bijective base-26 (sda..sdz, sdaa..). */
export function sdName(index: number): string {
  let n = index;
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return `sd${s}`;
}

/** sd.c dev number of disk `index`: major sd_major((index & 0xf0) >> 4), minor ((index & 0xf) << 4) | (index & 0xfff00). */
export function sdMajMin(index: number): string {
  const mi = (index & 0xf0) >> 4;
  const major = mi === 0 ? 8 : mi <= 7 ? 64 + mi : 120 + mi;
  const minor = ((index & 0xf) << 4) | (index & 0xfff00);
  return `${major}:${minor}`;
}

class Writer {
  constructor(readonly root: string) {}
  private made = new Set<string>();
  dir(p: string): void {
    if (this.made.has(p)) return;
    fs.mkdirSync(path.join(this.root, p), { recursive: true });
    this.made.add(p);
  }
  file(p: string, v: string): void {
    this.dir(path.posix.dirname(p));
    fs.writeFileSync(path.join(this.root, p), v);
  }
  attrs(dir: string, values: Record<string, string>): void {
    this.dir(dir);
    for (const [k, v] of Object.entries(values)) fs.writeFileSync(path.join(this.root, dir, k), v);
  }
  link(p: string, to: string): void {
    this.dir(path.posix.dirname(p));
    fs.symlinkSync(to, path.join(this.root, p));
  }
}

function portalOf(i: number, net: number): string {
  return `10.${net}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** Generates the tree under `root` (created if needed) and returns what it wrote. */
export function generateFixtureRoot(root: string, options: GenerateOptions): GeneratedRoot {
  const w = new Writer(root);
  const kroot = options.kubeletRoot ?? '/var/lib/kubelet';
  const withKubelet = options.kubelet ?? true;
  const N = options.sessions;
  const L = options.luns;
  const single = Math.ceil(N / 2);
  for (const d of [
    'iscsi_session',
    'iscsi_connection',
    'iscsi_host',
    'scsi_host',
    'scsi_device',
    'scsi_disk',
    'scsi_generic',
  ]) {
    w.dir(`/sys/class/${d}`);
  }
  w.dir('/sys/block');
  w.dir('/sys/class/block');
  w.dir('/sys/bus/scsi/devices');

  interface Target {
    iqn: string;
    portals: string[];
    /** LUN → sd names (one per path). */
    paths: Map<number, string[]>;
  }
  const targets: Target[] = [];
  let disk = 0;
  let sg = 0;
  let scsiDevices = 0;
  for (let i = 0; i < N; i++) {
    const sid = i + 1;
    const h = i;
    const multi = i >= single;
    const pair = Math.floor((i - single) / 2);
    let target: Target;
    if (!multi) {
      target = {
        iqn: `${IQN_PREFIX}.t${String(i).padStart(5, '0')}`,
        portals: [`${portalOf(i, 0)}`],
        paths: new Map(),
      };
      targets.push(target);
    } else if ((i - single) % 2 === 0) {
      target = {
        iqn: `${IQN_PREFIX}.mp${String(pair).padStart(5, '0')}`,
        portals: [portalOf(pair, 1), portalOf(pair, 2)],
        paths: new Map(),
      };
      targets.push(target);
    } else target = targets[targets.length - 1]!;
    const addr = multi ? target.portals[(i - single) % 2]! : target.portals[0]!;

    const hostDir = `/sys/devices/platform/host${h}`;
    w.attrs(`${hostDir}/iscsi_host/host${h}`, {
      hwaddress: '(null)\n',
      initiatorname: '(null)\n',
      ipaddress: '10.255.0.1\n',
      netdev: '(null)\n',
      uevent: '',
    });
    w.link(`${hostDir}/iscsi_host/host${h}/device`, `../../../host${h}`);
    w.attrs(`${hostDir}/scsi_host/host${h}`, {
      proc_name: 'iscsi_tcp\n',
      state: 'running\n',
      can_queue: '113\n',
      uevent: '',
    });
    w.link(`${hostDir}/scsi_host/host${h}/device`, `../../../host${h}`);
    w.file(`${hostDir}/uevent`, 'DEVTYPE=scsi_host\n');
    w.link(`/sys/class/iscsi_host/host${h}`, `../../devices/platform/host${h}/iscsi_host/host${h}`);
    w.link(`/sys/class/scsi_host/host${h}`, `../../devices/platform/host${h}/scsi_host/host${h}`);
    w.link(`/sys/bus/scsi/devices/host${h}`, `../../../devices/platform/host${h}`);

    const sessDir = `${hostDir}/session${sid}`;
    w.attrs(`${sessDir}/iscsi_session/session${sid}`, {
      targetname: `${target.iqn}\n`,
      tpgt: '1\n',
      state: 'LOGGED_IN\n',
      recovery_tmo: multi ? '5\n' : '120\n',
      ifacename: 'default\n',
      initiatorname: `${INITIATOR}\n`,
      target_id: '0\n',
      creator: '417\n',
      username: '(null)\n',
      password: '(null)\n',
      uevent: '',
    });
    w.link(`${sessDir}/iscsi_session/session${sid}/device`, `../../../session${sid}`);
    w.link(
      `/sys/class/iscsi_session/session${sid}`,
      `../../devices/platform/host${h}/session${sid}/iscsi_session/session${sid}`,
    );
    const conn = `connection${sid}:0`;
    w.attrs(`${sessDir}/${conn}/iscsi_connection/${conn}`, {
      address: `${addr}\n`,
      port: '3260\n',
      persistent_address: `${addr}\n`,
      persistent_port: '3260\n',
      state: 'up\n',
      local_port: `${40000 + (i % 20000)}\n`,
      uevent: '',
    });
    w.link(`${sessDir}/${conn}/iscsi_connection/${conn}/device`, `../../../${conn}`);
    w.link(
      `/sys/class/iscsi_connection/${conn}`,
      `../../devices/platform/host${h}/session${sid}/${conn}/iscsi_connection/${conn}`,
    );

    const tdir = `${sessDir}/target${h}:0:0`;
    w.file(`${tdir}/uevent`, 'DEVTYPE=scsi_target\n');
    w.link(
      `/sys/bus/scsi/devices/target${h}:0:0`,
      `../../../devices/platform/host${h}/session${sid}/target${h}:0:0`,
    );
    for (let lun = 0; lun <= L; lun++) {
      const hctl = `${h}:0:0:${lun}`;
      const ldir = `${tdir}/${hctl}`;
      const rel = `devices/platform/host${h}/session${sid}/target${h}:0:0/${hctl}`;
      scsiDevices++;
      const controller = lun === 0;
      w.attrs(ldir, {
        state: 'running\n',
        vendor: 'IET     \n',
        model: controller ? 'Controller      \n' : 'VIRTUAL-DISK    \n',
        rev: '0001\n',
        type: controller ? '12\n' : '0\n',
        scsi_level: '6\n',
        queue_depth: '32\n',
        timeout: '30\n',
        wwid: `naa.60000000000000000e${String(targets.length).padStart(8, '0')}${String(lun).padStart(4, '0')}\n`,
        uevent: `DEVTYPE=scsi_device\nDRIVER=sd\nMODALIAS=scsi:t-0x${controller ? '0c' : '00'}\n`,
      });
      w.dir(`${ldir}/scsi_device/${hctl}`);
      w.link(`/sys/class/scsi_device/${hctl}`, `../../${rel}/scsi_device/${hctl}`);
      w.link(`/sys/bus/scsi/devices/${hctl}`, `../../../${rel}`);
      w.dir(`${ldir}/scsi_generic/sg${sg}`);
      w.link(`${ldir}/generic`, `scsi_generic/sg${sg}`);
      w.link(`/sys/class/scsi_generic/sg${sg}`, `../../${rel}/scsi_generic/sg${sg}`);
      sg++;
      if (controller) continue;
      const name = sdName(disk);
      const mm = sdMajMin(disk);
      disk++;
      const bdir = `${ldir}/block/${name}`;
      w.attrs(bdir, {
        dev: `${mm}\n`,
        size: `${131072 >> (lun % 3)}\n`,
        ro: '0\n',
        removable: '0\n',
        uevent: `MAJOR=${mm.split(':')[0]}\nMINOR=${mm.split(':')[1]}\nDEVNAME=${name}\nDEVTYPE=disk\n`,
      });
      w.dir(`${bdir}/holders`);
      w.dir(`${bdir}/slaves`);
      w.link(`${bdir}/device`, `../../../${hctl}`);
      w.link(`/sys/block/${name}`, `../${rel}/block/${name}`);
      w.link(`/sys/class/block/${name}`, `../../${rel}/block/${name}`);
      w.dir(`${ldir}/scsi_disk/${hctl}`);
      w.link(`/sys/class/scsi_disk/${hctl}`, `../../${rel}/scsi_disk/${hctl}`);
      const list = target.paths.get(lun) ?? [];
      list.push(`${rel}/block/${name}`);
      target.paths.set(lun, list);
    }
  }

  // Multipath maps (multipathd names them mpatha.. by default: user_friendly_names).
  let dm = 0;
  const mounts: string[] = [
    '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw',
    '23 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=4000k,mode=755',
  ];
  let mountId = 100;
  let kubeletVolumes = 0;
  let mountedVolumes = 0;
  let csiLeft = options.csi ?? 0;
  for (const t of targets) {
    for (const [lun, paths] of t.paths) {
      let majMin: string;
      let source: string;
      if (paths.length > 1) {
        const k = dm++;
        majMin = `254:${k}`;
        const alias = `mpath${sdName(k).slice(2)}`;
        source = `/dev/mapper/${alias}`;
        const ddir = `/sys/devices/virtual/block/dm-${k}`;
        w.attrs(ddir, {
          dev: `${majMin}\n`,
          size: '131072\n',
          ro: '0\n',
          uevent: `MAJOR=254\nMINOR=${k}\nDEVNAME=dm-${k}\nDEVTYPE=disk\n`,
        });
        w.attrs(`${ddir}/dm`, {
          name: `${alias}\n`,
          uuid: `mpath-360000000000000000e${String(k).padStart(11, '0')}\n`,
          suspended: '0\n',
        });
        w.dir(`${ddir}/holders`);
        w.link(`/sys/block/dm-${k}`, `../devices/virtual/block/dm-${k}`);
        w.link(`/sys/class/block/dm-${k}`, `../../devices/virtual/block/dm-${k}`);
        for (const p of paths) {
          const name = path.posix.basename(p);
          // From <disk>/holders/ up eight levels is /sys/devices (captures mp-holders.txt).
          w.link(`/sys/${p}/holders/dm-${k}`, `../../../../../../../../virtual/block/dm-${k}`);
          w.link(`${ddir}/slaves/${name}`, `../../../../${p.slice('devices/'.length)}`);
        }
      } else {
        const name = path.posix.basename(paths[0]!);
        majMin = fs.readFileSync(path.join(root, 'sys', paths[0]!, 'dev'), 'utf8').trim();
        source = `/dev/${name}`;
      }
      if (!withKubelet) continue;
      if (csiLeft > 0) {
        csiLeft--;
        csiVolume(
          w,
          kroot,
          mounts,
          t.iqn,
          t.portals.map((p) => `${p}:3260`),
          lun,
          kubeletVolumes,
          majMin,
          source,
          mountId,
        );
        mountId += 2;
        kubeletVolumes++;
        if (kubeletVolumes % 2 === 1) mountedVolumes++;
        continue;
      }
      const portal = `${t.portals[0]}:3260`;
      const g = `${kroot}/plugins/kubernetes.io/iscsi/iface-default/${portal}-${t.iqn}-lun-${lun}`;
      const volName = `pv-${kubeletVolumes}`;
      kubeletVolumes++;
      w.dir(g);
      const mounted = kubeletVolumes % 2 === 1;
      if (mounted) {
        mountedVolumes++;
        const pod = `${kroot}/pods/pod-${String(kubeletVolumes).padStart(6, '0')}/volumes/kubernetes.io~iscsi/${volName}`;
        w.dir(pod);
        mounts.push(`${mountId++} 22 ${majMin} / ${g} rw,relatime shared:${mountId} - ext4 ${source} rw`);
        mounts.push(
          `${mountId++} 22 ${majMin} / ${pod} rw,relatime shared:${mountId - 1} - ext4 ${source} rw`,
        );
      } else {
        const json = {
          VolName: volName,
          Portals: t.portals.map((p) => `${p}:3260`),
          Iqn: t.iqn,
          Lun: String(lun),
          InitIface: 'default',
          Iface: 'default',
          InitiatorName: '',
          MetricsProvider: null,
        };
        w.file(`${g}/iscsi.json`, `${JSON.stringify(json)}\n`);
      }
    }
  }
  w.file('/proc/1/mountinfo', `${mounts.join('\n')}\n`);
  w.file('/proc/swaps', 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n');
  w.file('/etc/iscsi/initiatorname.iscsi', `InitiatorName=${INITIATOR}\n`);
  return {
    root,
    sessions: N,
    disks: disk,
    scsiDevices,
    multipathMaps: dm,
    kubeletVolumes,
    mountedVolumes,
    targets: targets.length,
  };
}

/** One CSI volume the way kubelet's CSI plugin and its driver lay it out (see GenerateOptions.csi). */
function csiVolume(
  w: { dir(p: string): void; file(p: string, text: string): void },
  kroot: string,
  mounts: string[],
  iqn: string,
  portals: string[],
  lun: number,
  n: number,
  majMin: string,
  source: string,
  mountId: number,
): void {
  const driver = n % 2 === 0 ? 'iscsi.csi.k8s.io' : 'csi.trident.netapp.io';
  const handle = `vol-${String(n).padStart(6, '0')}`;
  const pv = `pv-csi-${n}`;
  const sha = createHash('sha256').update(handle).digest('hex');
  const staging = `${kroot}/plugins/kubernetes.io/csi/${driver}/${sha}`;
  const publish = `${kroot}/pods/pod-csi-${String(n).padStart(6, '0')}/volumes/kubernetes.io~csi/${pv}`;
  w.dir(`${staging}/globalmount`);
  w.file(`${staging}/vol_data.json`, `${JSON.stringify({ driverName: driver, volumeHandle: handle })}\n`);
  w.dir(`${publish}/mount`);
  w.file(
    `${publish}/vol_data.json`,
    `${JSON.stringify({ attachmentID: `csi-${sha}`, driverName: driver, nodeName: 'node-a', specVolID: pv, volumeHandle: handle, volumeLifecycleMode: 'Persistent' })}\n`,
  );
  if (driver === 'iscsi.csi.k8s.io') {
    w.file(
      `/var/run/iscsi.csi.k8s.io/iscsi-${handle}.json`,
      `${JSON.stringify({ volume_name: handle, target_iqn: iqn, target_portal: portals, lun, auth_type: '', discovery_secrets: { userName: '', password: '' }, session_secrets: { userName: '', password: '' }, interface: 'default', mount_target_device: null, devices: [], retry_count: 10, check_interval: 1, do_discovery: false, do_chap_discovery: false })}\n`,
    );
  } else {
    w.file(
      `/var/lib/trident/tracking/${handle}.json`,
      `${JSON.stringify({ iscsiTargetPortal: portals[0], iscsiPortals: portals.slice(1), iscsiTargetIqn: iqn, iscsiLunNumber: lun, iscsiInterface: 'default', useCHAP: false, devicePath: source, fstype: 'ext4', SANType: 'iscsi', stagingTargetPath: `${staging}/globalmount`, publishedTargetPaths: { [`${publish}/mount`]: {} } })}\n`,
    );
  }
  if (n % 2 === 0) {
    const at = driver === 'iscsi.csi.k8s.io' ? `${publish}/mount` : `${staging}/globalmount`;
    mounts.push(`${mountId} 22 ${majMin} / ${at} rw,relatime shared:${mountId} - ext4 ${source} rw`);
    if (driver !== 'iscsi.csi.k8s.io')
      mounts.push(
        `${mountId + 1} 22 ${majMin} / ${publish}/mount rw,relatime shared:${mountId} - ext4 ${source} rw`,
      );
  }
}
