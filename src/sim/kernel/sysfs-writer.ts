import type { Tree } from '../tree.js';
import type { SimDmMap, SimLoop, SimScsiDevice, SimSession } from '../types.js';
import {
  type Attr,
  blockAttrs,
  connectionAttrs,
  iscsiHostAttrs,
  RW,
  scsiDeviceAttrs,
  scsiHostAttrs,
  sessionAttrs,
} from './attrs.js';
import { DM_MAJOR, LOOP_MAJOR, sdDevt, sdName } from './names.js';
import {
  connDir,
  dmDir,
  hctl,
  hostDir,
  loopDir,
  sdevDir,
  sessionAttrDir,
  sessionDir,
  targetDir,
} from './paths.js';

const SECTOR = 512;

/**
 * Attributes the `lean` profile keeps: everything the engine, kubelet, udev and iscsiadm read or
 * write (docs/iscsiadm.md#sysfs). The scale scenario uses it so 1,000 sessions materialise in
 * seconds; every other scenario uses the full profile that test/sim/conformance.test.ts checks.
 */
const LEAN = new Set([
  'hwaddress',
  'initiatorname',
  'ipaddress',
  'netdev',
  'proc_name',
  'scan',
  'state',
  'creator',
  'ifacename',
  'recovery_tmo',
  'targetname',
  'tpgt',
  'username',
  'address',
  'port',
  'persistent_address',
  'persistent_port',
  'delete',
  'model',
  'rev',
  'type',
  'vendor',
  'wwid',
  'dev',
  'size',
  'ro',
  'name',
  'uuid',
  'backing_file',
  'partition',
  'start',
  // The negotiated parameters -P 3 prints, and the local port they are kept by (iscsi-params.ts).
  'local_port',
  'header_digest',
  'data_digest',
  'max_recv_dlength',
  'max_xmit_dlength',
  'first_burst_len',
  'max_burst_len',
  'immediate_data',
  'initial_r2t',
  'max_outstanding_r2t',
  'data_pdu_in_order',
  'data_seq_in_order',
  'erl',
  'tgt_reset_tmo',
  'lu_reset_tmo',
  'abort_tmo',
  'suspended',
]);

/** How much of sysfs to materialise: `full` (as captured, minus noise) or `lean` (what is read). */
export type SysfsProfile = 'full' | 'lean';

/** Materialises kernel objects as sysfs files and links, and removes them again. */
export class SysfsWriter {
  constructor(
    private readonly tree: Tree,
    private readonly iscsidPid: number,
    readonly profile: SysfsProfile = 'full',
  ) {}

  /** The parts of sysfs that exist on any node with the iSCSI modules loaded. */
  base(): void {
    const t = this.tree;
    for (const c of [
      'iscsi_session',
      'iscsi_connection',
      'iscsi_host',
      'iscsi_transport',
      'iscsi_iface',
      'iscsi_endpoint',
      'scsi_host',
      'scsi_device',
      'scsi_disk',
      'scsi_generic',
    ]) {
      t.dir(`/sys/class/${c}`);
    }
    t.dir('/sys/bus/scsi/devices');
    t.dir('/sys/block');
    t.dir('/sys/devices/platform');
    t.dir('/sys/devices/virtual/block');
    t.dir('/sys/devices/virtual/iscsi_transport/tcp');
    this.attrs('/sys/devices/virtual/iscsi_transport/tcp', [
      ['caps', '0x39'],
      ['handle', '18446744072642379872'],
    ]);
    t.relLink('/sys/class/iscsi_transport/tcp', '/sys/devices/virtual/iscsi_transport/tcp');
  }

  attrs(dir: string, attrs: readonly Attr[]): void {
    const lean = this.profile === 'lean';
    for (const [name, value, mode] of attrs) {
      if (lean && !LEAN.has(name)) continue;
      // Write-only attributes exist but hold nothing; everything else ends in a newline like show().
      this.tree.file(`${dir}/${name}`, value === '' ? '' : `${value}\n`, mode ?? 0o444);
    }
  }

  /** One attribute rewritten after a state change (state, recovery_tmo, ...). */
  attr(path: string, value: string, mode = RW): void {
    if (this.tree.exists(path)) this.tree.file(path, `${value}\n`, mode);
  }

  session(s: SimSession): void {
    const t = this.tree;
    const h = s.host;
    const host = hostDir(h);
    const sess = sessionDir(h, s.sid);
    // One mkdir per level (parents known to exist): a 1,000-session node is ~100k fs calls.
    for (const d of [
      host,
      `${host}/iscsi_host`,
      `${host}/iscsi_host/host${h}`,
      `${host}/scsi_host`,
      `${host}/scsi_host/host${h}`,
    ]) {
      t.mkdir1(d);
    }
    this.attrs(`${host}/iscsi_host/host${h}`, iscsiHostAttrs(s));
    this.attrs(`${host}/scsi_host/host${h}`, scsiHostAttrs(s));
    t.relLink(`${host}/iscsi_host/host${h}/device`, host);
    t.relLink(`${host}/scsi_host/host${h}/device`, host);
    const sattr = sessionAttrDir(h, s.sid);
    const cdir = connDir(h, s.sid);
    const conn = `${sess}/connection${s.sid}:0`;
    for (const d of [sess, `${sess}/iscsi_session`, sattr, conn, `${conn}/iscsi_connection`, cdir])
      t.mkdir1(d);
    this.attrs(sattr, sessionAttrs(s, this.iscsidPid));
    t.relLink(`${sattr}/device`, sess);
    this.attrs(cdir, connectionAttrs(s));
    t.relLink(`${cdir}/device`, conn);
    t.relLink(`/sys/class/iscsi_host/host${h}`, `${host}/iscsi_host/host${h}`);
    t.relLink(`/sys/class/scsi_host/host${h}`, `${host}/scsi_host/host${h}`);
    t.relLink(`/sys/class/iscsi_session/session${s.sid}`, sattr);
    t.relLink(`/sys/class/iscsi_connection/connection${s.sid}:0`, cdir);
    t.relLink(`/sys/bus/scsi/devices/host${h}`, host);
  }

  removeSession(s: SimSession): void {
    const t = this.tree;
    t.remove(`/sys/class/iscsi_session/session${s.sid}`);
    t.remove(`/sys/class/iscsi_connection/connection${s.sid}:0`);
    t.remove(`/sys/class/iscsi_host/host${s.host}`);
    t.remove(`/sys/class/scsi_host/host${s.host}`);
    t.remove(`/sys/bus/scsi/devices/host${s.host}`);
    t.remove(`/sys/bus/scsi/devices/target${s.host}:0:0`);
    t.remove(hostDir(s.host));
  }

  /** Session and connection attributes that change with the session state. */
  sessionState(s: SimSession): void {
    this.attr(`${sessionAttrDir(s.host, s.sid)}/state`, s.state, 0o444);
    this.attr(`${connDir(s.host, s.sid)}/state`, connectionAttrs(s).find((a) => a[0] === 'state')![1], 0o444);
  }

  /** The session's replacement timeout after someone (iscsiadm, multipathd) changed it. */
  recoveryTmo(s: SimSession): void {
    this.attr(`${sessionAttrDir(s.host, s.sid)}/recovery_tmo`, String(s.recoveryTmo));
  }

  scsiDevice(s: SimSession, d: SimScsiDevice): void {
    const t = this.tree;
    const tdir = targetDir(s.host, s.sid);
    if (!t.exists(tdir)) {
      t.mkdir1(tdir);
      t.relLink(`/sys/bus/scsi/devices/target${s.host}:0:0`, tdir);
    }
    const dir = sdevDir(s.host, s.sid, d.lun);
    const id = hctl(s.host, d.lun);
    t.mkdir1(dir);
    this.attrs(dir, scsiDeviceAttrs(d, d.wwid));
    if (this.profile === 'full') {
      t.mkdir1(`${dir}/scsi_device`);
      t.mkdir1(`${dir}/scsi_device/${id}`);
      t.relLink(`${dir}/scsi_device/${id}/device`, dir);
      t.relLink(`/sys/class/scsi_device/${id}`, `${dir}/scsi_device/${id}`);
    }
    t.relLink(`/sys/bus/scsi/devices/${id}`, dir);
    if (d.sdIndex !== undefined) this.sdBlock(s, d);
  }

  private sdBlock(s: SimSession, d: SimScsiDevice): void {
    const t = this.tree;
    const name = sdName(d.sdIndex!);
    const dir = `${sdevDir(s.host, s.sid, d.lun)}/block/${name}`;
    const devt = sdDevt(d.sdIndex!);
    for (const x of [`${dir.slice(0, dir.lastIndexOf('/'))}`, dir, `${dir}/holders`, `${dir}/slaves`])
      t.mkdir1(x);
    this.attrs(dir, blockAttrs(devt, Math.floor(d.spec!.sizeBytes / SECTOR), '0'));
    t.relLink(`${dir}/device`, sdevDir(s.host, s.sid, d.lun));
    t.relLink(`/sys/block/${name}`, dir);
    for (let p = 1; p <= d.partitions; p++) {
      const pdir = `${dir}/${name}${p}`;
      t.dir(`${pdir}/holders`);
      const sectors = Math.floor(d.spec!.sizeBytes / SECTOR / d.partitions) - 2048;
      this.attrs(pdir, [
        ['dev', `${devt.major}:${devt.minor + p}`],
        ['partition', String(p)],
        ['ro', '0'],
        ['size', String(sectors)],
        ['start', String(2048 + (p - 1) * (sectors + 2048))],
      ]);
    }
  }

  removeScsiDevice(s: SimSession, d: SimScsiDevice): void {
    const t = this.tree;
    const id = hctl(s.host, d.lun);
    if (d.sdIndex !== undefined) t.remove(`/sys/block/${sdName(d.sdIndex)}`);
    t.remove(`/sys/class/scsi_device/${id}`);
    t.remove(`/sys/bus/scsi/devices/${id}`);
    t.remove(sdevDir(s.host, s.sid, d.lun));
  }

  deviceState(s: SimSession, d: SimScsiDevice): void {
    this.attr(`${sdevDir(s.host, s.sid, d.lun)}/state`, d.state);
  }

  /** Path of an sd disk's block directory (for holders links). */
  sdBlockDir(s: SimSession, d: SimScsiDevice): string {
    return `${sdevDir(s.host, s.sid, d.lun)}/block/${sdName(d.sdIndex!)}`;
  }

  dm(map: SimDmMap, slaveDirs: ReadonlyMap<string, string>): void {
    const t = this.tree;
    const dir = dmDir(map.minor);
    t.dir(`${dir}/dm`);
    t.dir(`${dir}/holders`);
    t.dir(`${dir}/slaves`);
    this.attrs(
      dir,
      blockAttrs({ major: DM_MAJOR, minor: map.minor }, Math.floor(map.sizeBytes / SECTOR), '4'),
    );
    this.attrs(`${dir}/dm`, [
      ['name', map.name],
      ['suspended', '0'],
      ['use_blk_mq', '1'],
      ['uuid', `mpath-${map.wwid}`],
    ]);
    t.relLink(`/sys/block/dm-${map.minor}`, dir);
    for (const [sd, sdDir] of slaveDirs) this.dmSlave(map, sd, sdDir);
  }

  dmSlave(map: SimDmMap, sd: string, sdDir: string): void {
    const dir = dmDir(map.minor);
    this.tree.relLink(`${dir}/slaves/${sd}`, sdDir);
    if (this.tree.exists(sdDir)) this.tree.relLink(`${sdDir}/holders/dm-${map.minor}`, dir);
  }

  removeDmSlave(map: SimDmMap, sd: string): void {
    this.tree.remove(`${dmDir(map.minor)}/slaves/${sd}`);
  }

  removeDm(map: SimDmMap, slaveDirs: ReadonlyMap<string, string>): void {
    for (const sdDir of slaveDirs.values()) this.tree.remove(`${sdDir}/holders/dm-${map.minor}`);
    this.tree.remove(`/sys/block/dm-${map.minor}`);
    this.tree.remove(dmDir(map.minor));
  }

  loop(l: SimLoop, sizeBytes: number): void {
    const t = this.tree;
    const dir = loopDir(l.minor);
    t.dir(`${dir}/loop`);
    t.dir(`${dir}/holders`);
    t.dir(`${dir}/slaves`);
    this.attrs(dir, blockAttrs({ major: LOOP_MAJOR, minor: l.minor }, Math.floor(sizeBytes / SECTOR), '0'));
    this.attrs(`${dir}/loop`, [
      ['autoclear', '1'],
      ['backing_file', l.backingFile],
      ['dio', '0'],
      ['offset', '0'],
      ['partscan', '0'],
      ['sizelimit', '0'],
    ]);
    t.relLink(`/sys/block/loop${l.minor}`, dir);
  }

  removeLoop(l: SimLoop): void {
    this.tree.remove(`/sys/block/loop${l.minor}`);
    this.tree.remove(loopDir(l.minor));
  }
}
