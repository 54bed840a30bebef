/**
 * The snapshot: one read of a node's whole iSCSI state, as data. This is the schema that
 * `status --json` prints (its schemaVersion is SCHEMA_VERSION), that the store holds, and that planners read.
 * Every path in it is a host path (never prefixed by --root).
 */

export const SCHEMA_VERSION = 2 as const;

/**
 * Why a session exists, from the kubelet's point of view (docs/status-schema.md, verdicts). `outage`: nothing on
 * the node uses it (it would be orphaned or stale) but its portal is down, so whether it is garbage
 * cannot be told until the portal is back (docs/status-schema.md "Verdicts").
 */
export type Verdict = 'in-use' | 'foreign' | 'orphaned' | 'outage' | 'stale' | 'claimed';
export type Health = 'ok' | 'degraded' | 'failed';

/** Stable identity of a session across re-logins: sids are not persistent (iscsiadm.8). */
export type SessionKey = string & { readonly __brand: 'SessionKey' };
/** Stable identity of a LUN path: target|portal|iface|lun. */
export type LunKey = string & { readonly __brand: 'LunKey' };

export interface Connection {
  /** `connection<sid>:<cid>` name in sysfs. */
  name: string;
  /** Portal the record asked for (still readable while the connection is down). */
  persistentAddress?: string;
  persistentPort?: number;
  /** Current address/port: the kernel answers ENOTCONN while the connection is down. */
  address?: string;
  port?: number;
  /** Connection state (up/down/failed/bound); 6.1.0 shows `up` (captures, e2e). Absent on older kernels. */
  state?: string;
  /** What the connection negotiated, as `iscsiadm -m session -P 3` prints it (read from sysfs). */
  params?: ConnectionParams;
}

/**
 * A connection's negotiated login keys, from its iscsi_connection sysfs dir (attribute names of
 * drivers/scsi/scsi_transport_iscsi.c, iscsi_conn_attr; captures single-sysfs.json). Each field is
 * absent when the kernel does not show it (the connection is down, or an older kernel).
 */
export interface ConnectionParams {
  /** HeaderDigest / DataDigest: `None` or `CRC32C` (sysfs `header_digest`/`data_digest`: 0 or 1). */
  headerDigest?: string;
  dataDigest?: string;
  /** MaxRecvDataSegmentLength / MaxXmitDataSegmentLength, bytes. */
  maxRecvDataSegmentLength?: number;
  maxXmitDataSegmentLength?: number;
  /** Local TCP port of the connection. */
  localPort?: number;
  /** NOP-Out interval (ping_tmo) and its reply timeout (recv_tmo), seconds. */
  pingTmo?: number;
  recvTmo?: number;
}

/**
 * A session's negotiated login keys and error-handling timeouts, from its iscsi_session sysfs dir
 * (scsi_transport_iscsi.c, iscsi_session_attr; what `iscsiadm -m session -P 3` prints under
 * "Negotiated iSCSI params" and "Timeouts"). Absent fields: not shown by this kernel.
 */
export interface SessionParams {
  firstBurstLength?: number;
  maxBurstLength?: number;
  immediateData?: boolean;
  initialR2T?: boolean;
  maxOutstandingR2T?: number;
  dataPduInOrder?: boolean;
  dataSequenceInOrder?: boolean;
  /** ErrorRecoveryLevel. */
  erl?: number;
  /** Target Reset / LUN Reset / Abort timeouts, seconds. */
  targetResetTmo?: number;
  lunResetTmo?: number;
  abortTmo?: number;
}

/**
 * What is on a block device, as udev's blkid builtin recorded it in the udev database
 * (`/run/udev/data/b<major>:<minor>`, keys ID_FS_TYPE/ID_FS_LABEL/ID_FS_UUID): the same values
 * `lsblk -o FSTYPE,LABEL,UUID` prints. Absent when udev has not probed the device (or it is empty).
 */
export interface FsInfo {
  /** `ext4`, `xfs`, `LVM2_member`, `swap`, ... */
  type?: string;
  label?: string;
  uuid?: string;
}

export interface ScsiDevice {
  /** `H:C:T:L`. */
  hctl: string;
  host: number;
  channel: number;
  target: number;
  /** The target's LUN (what a PV spec and kubelet's dir names say; src/engine/iscsi/lun.ts). */
  lun: number;
  /** The kernel's LUN number (the `L` of hctl), only where it differs from `lun` (16684 for LUN 300). */
  kernelLun?: number;
  vendor?: string;
  model?: string;
  rev?: string;
  /** SCSI peripheral type (0 disk, 12 controller/RAID as tgt exposes LUN 0). */
  type?: number;
  /** Kernel device state: running, offline, transport-offline, blocked, created-blocked, ... */
  state?: string;
  /** Block device name (`sdb`); absent for LUN 0 controllers, which have only an sg node. */
  name?: string;
  /** `major:minor` of the block device. */
  majMin?: string;
  sizeBytes?: number;
  /** wwid attribute (e.g. `naa.6001405...`), when the device exposes one. */
  wwid?: string;
  /** Names under /sys/block/<sdX>/holders (dm-N). */
  holders: readonly string[];
  /** Partitions (`sdb1`). */
  partitions: readonly string[];
  /** Filesystems mounted from this device, its partitions, and its dm holders (host paths; what lsblk shows). */
  mountpoints: readonly string[];
  /** Bind mounts of the device node itself (kubelet block volumes), when there are any. */
  blockBinds?: BlockBind[];
  /** True when this device, a partition or a holder is swap (/proc/swaps). */
  swap: boolean;
  /** Loop devices whose backing file is this device's kubelet node (block volumes). */
  loops: readonly string[];
  /** `/dev/disk/by-path/...` links pointing at this device. */
  byPath: readonly string[];
  /** Fingerprint target|portal|iface|lun. */
  key: LunKey;
  /** Filesystem on the whole disk, from the udev database (absent: none recorded). */
  fs?: FsInfo;
  /** Filesystems on partitions, by partition name (only partitions udev recorded one for). */
  partitionFs?: Record<string, FsInfo>;
  /** Who claims this LUN (docs/csi-drivers.md "Per-device claims"); absent when nothing does. */
  claims?: DeviceClaim[];
}

/** An owner of one LUN: the in-tree plugin's kubelet dir, a CSI volume, a driver's file or target. */
export interface DeviceClaim {
  owner: 'in-tree' | 'csi' | 'driver-file' | 'driver-target';
  /** The CSI driver, or `kubernetes.io/iscsi` for the in-tree plugin. */
  driver: string;
  pv?: string;
  volumeHandle?: string;
  mounted: boolean;
  /** What names this LUN (or, for a claim by target name, the whole target). */
  why: string;
}

/**
 * A bind mount of a device node (`mount --bind /dev/sdX <path>`): kubelet maps a block volume this
 * way at `<globalMapPath>/<podUID>` (kubernetes pkg/volume/util/volumepathhandler). No filesystem
 * of the device is mounted; the node is held open all the same.
 */
export interface BlockBind {
  /** The bind mount's path (host path). */
  path: string;
  /** The kernel device whose node is bound (`sdb`, a partition, or `dm-0 (mpatha) → sdb`). */
  via: string;
  /** Below the kubelet root: a kubelet block volume. */
  kubelet: boolean;
  /** The pod the per-pod entry belongs to (`<globalMapPath>/<podUID>`). */
  podUid?: string;
}

export interface Session {
  sid: number;
  /** `session<sid>`. */
  name: string;
  targetIqn: string;
  /** Persistent portal as `addr:port`, IPv6 bracketed (`[fd00::1]:3260`). */
  portal: string;
  tpgt: number;
  /** iface name (`default`, or a kubelet clone `<portal>:<volName>`). */
  iface: string;
  initiatorName?: string;
  /** Session state from sysfs: LOGGED_IN, FAILED, FREE, UNBOUND. */
  state: string;
  /** recovery_tmo in seconds (replacement_timeout); -1 when the kernel shows "off" (never fail I/O). */
  recoveryTmo?: number;
  hostNumber?: number;
  /** SCSI host state (running, recovery, ...). */
  hostState?: string;
  /** iscsi_host ipaddress: the local address (ENOTCONN while down, then absent). */
  ipaddress?: string;
  netdev?: string;
  connections: readonly Connection[];
  /** Negotiated parameters and timeouts (sysfs); absent when none could be read. */
  params?: SessionParams;
  devices: readonly ScsiDevice[];
  verdict: Verdict;
  health: Health;
  /** Human-readable reasons behind verdict and health. */
  reasons: readonly string[];
  /** kubelet's own isSessionBusy answer: count of `<portal>-<iqn>*` global dirs > 1 (docs/kubelet-iscsi.md#issessionbusy). */
  kubeletBusy: boolean;
  /** Set when kubelet's answer and the console's verdict disagree, with why. */
  kubeletDisagreement?: string;
  /** Global kubelet dirs (host paths) that refer to this session's portal+iqn. */
  kubeletVolumes: string[];
  /** Pod UIDs with a volume dir referring to this session. */
  pods: string[];
  /** `pods` with their names, in the same order (docs/status-schema.md#pod-names); set when `pods` is not empty. */
  podRefs?: PodRef[];
  key: SessionKey;
  /** Who claims the session (docs/csi-drivers.md); absent when nothing does. */
  claims?: SessionClaim[];
  /**
   * A stale session nothing claims whose target name or the node's only iSCSI CSI driver says
   * which driver logged it in (its registered name, `csi.trident.netapp.io`): a driver leftover.
   */
  leftBy?: string;
  /**
   * While the session is down (state FAILED/FREE or a connection down/failed): when this process
   * first read it down (ISO). The kernel keeps no failure time (scsi_transport_iscsi.c exposes
   * `state` and `recovery_tmo` only), so a watcher carries the first sighting across reads; a single
   * read (`status`) gives its own time. The kernel's recovery timer may have started earlier.
   */
  downSeenAt?: string;
  /** Set when a read before found the session up: `downSeenAt` is then the failure's time (within a poll). */
  downObserved?: true;
  /**
   * Set only in a partial snapshot (`Snapshot.partial`, the console's first look): identity and
   * state are read, verdict, health, devices and kubelet links are not known yet.
   */
  pending?: true;
}

export interface MultipathMap {
  /** Kernel name `dm-0`. */
  name: string;
  /** dm/name, e.g. `mpatha` or a WWID. */
  alias: string;
  /** dm/uuid without the `mpath-` prefix. */
  wwid: string;
  uuid: string;
  majMin?: string;
  sizeBytes?: number;
  /** sd devices under slaves/. */
  slaves: string[];
  /** Devices holding this map (partition maps, LVM). */
  holders: string[];
  mountpoints: string[];
  /** Paths whose SCSI device is not `running`. */
  failedSlaves: string[];
  /** `/dev/mapper/<alias>` exists. */
  mapperLink: boolean;
  /** dm/suspended is 1: the map is suspended (I/O to it waits until it is resumed). */
  suspended?: boolean;
  /** Filesystem on the map, from the udev database. */
  fs?: FsInfo;
  /**
   * Path groups and path states as `multipath -ll` words them, from the last topology read
   * (multipathd, or the device-mapper table and status): src/engine/snapshot/multipath-topology.ts.
   * Absent when no topology has been read for this map. Its path `devState` is this snapshot's sysfs read.
   */
  topology?: MultipathTopology;
}

/** A multipath map's topology (docs/status-schema.md#multipath-topology). */
export interface MultipathTopology {
  /** Where it was read: multipathd (`show maps json`) or the kernel's dm table and status (`dmsetup`). */
  source: 'multipathd' | 'dmsetup';
  /** When it was read (ISO); the snapshot may be newer. */
  readAt: string;
  /** `features='…'` and `hwhandler='…'` of `multipath -ll` (the dm table's feature and hw-handler args). */
  features?: string;
  hwhandler?: string;
  /** `wp=rw|ro` (multipathd only). */
  writeProt?: string;
  /** multipathd's queueing (`-`, `on`, `off`, `<n> chk`). */
  queueing?: string;
  pathGroups: MultipathPathGroup[];
}

export interface MultipathPathGroup {
  /** 1-based, in the map's table order. */
  group: number;
  /** `policy='…'`: the path selector with its argument count, e.g. `service-time 0`. */
  selector?: string;
  /** `prio=`: multipathd's group priority (dm itself keeps none, so absent from dmsetup). */
  priority?: number;
  /** `status=`: active (I/O goes here), enabled, or disabled (dm-mpath's A/E/D). */
  state: string;
  paths: MultipathPath[];
}

export interface MultipathPath {
  /** Kernel name (`sdb`), or the dm table's `major:minor` when no block device has that number. */
  dev: string;
  devT?: string;
  /** H:C:T:L of the SCSI device (from this snapshot). */
  hctl?: string;
  /** dm's own path state: `active` or `failed` (dm-mpath status A/F). */
  dmState?: string;
  /** multipathd's path checker state: ready, faulty, ghost, shaky, i/o pending, ... (multipathd only). */
  checkerState?: string;
  /** The SCSI device state from sysfs at this snapshot (running, offline, blocked, ...). */
  devState?: string;
  /** multipathd's path priority. */
  priority?: number;
  /** dm-mpath's fail count for the path (dmsetup only). */
  failCount?: number;
}

export interface Mount {
  mountId: number;
  parentId: number;
  majMin: string;
  /** Root of the mount within its filesystem (`/` or a sub-path for bind mounts). */
  root: string;
  mountPoint: string;
  options: string;
  fsType: string;
  source: string;
  superOptions: string;
}

/** Parsed kubelet `iscsi.json` (tolerant: older kubelets wrote fewer fields). */
export interface IscsiJson {
  VolName?: string;
  Portals?: string[];
  Iqn?: string;
  Lun?: string;
  InitIface?: string;
  Iface?: string;
  InitiatorName?: string;
}

export interface PodVolume {
  podUid: string;
  /** The pod's namespace and name where the node says (kubelet.pods), beside its UID. */
  podNamespace?: string;
  podName?: string;
  volName: string;
  /** Host path of the pod's volume dir or device symlink. */
  path: string;
  mode: 'filesystem' | 'block';
  /** Global dir this pod volume binds (matched by mount source or symlink target). */
  globalPath?: string;
  mounted: boolean;
}

export interface KubeletVolume {
  /** Host path of the global dir. */
  path: string;
  mode: 'filesystem' | 'block';
  iface: string;
  /** Primary portal, as in the dir name. */
  portal: string;
  iqn: string;
  lun: string;
  metadata?: IscsiJson;
  /** Where identity came from: the file, the dir name (kubelet's fallback), or nothing. */
  metadataSource: 'iscsi.json' | 'path' | 'hidden';
  /** The global dir is a mount point (FS volumes: iscsi.json is then hidden under the mount). */
  mounted: boolean;
  /** Block volumes: per-pod device nodes under the map path. */
  podDevices: readonly string[];
  /** Sessions (sids) this volume refers to (portal+iqn, all its portals). */
  sessions: number[];
  pods: string[];
  /** `pods` with their names, in the same order; set when `pods` is not empty. */
  podRefs?: PodRef[];
  problems: string[];
  /** Facts worth showing that are not problems (e.g. iscsi.json hidden under the mount). */
  notes?: string[];
}

export interface NodeRecord {
  targetIqn: string;
  portal: string;
  tpgt: number;
  iface: string;
  startup?: string;
  scan?: string;
  /** True when CHAP is configured (values never read into the snapshot). */
  chap: boolean;
  /** Host path of the record file. */
  path: string;
}

export interface Iface {
  name: string;
  transport?: string;
  initiatorName?: string;
  hwaddress?: string;
  ipaddress?: string;
  netdev?: string;
  path: string;
}

/**
 * What one live reachability probe of a portal found (src/engine/probe/portal-probe.ts): run only
 * in write mode or when asked (`status --probe`, the console's key), never on a `--root` tree.
 */
export interface PortalProbe {
  /** `addr:port` as in Session.portal. */
  portal: string;
  /** When the probe started (ISO, the injected clock). */
  at: string;
  /** The portal answered (SendTargets, an authorization failure, or a TCP accept where no SendTargets is sent); false: it did not; undefined: not probed. */
  answers: boolean | undefined;
  /** What answered or failed: `sendtargets`, `auth` (asked for credentials), `tcp` (the connect alone), `none` (not probed). */
  via: 'sendtargets' | 'auth' | 'tcp' | 'none';
  /** One line: `SendTargets answered (3 targets)`, `connection refused`, `accepted a TCP connection, no SendTargets answer within 5 s`. */
  detail: string;
  durationMs: number;
}

/**
 * A filesystem on an iSCSI disk or map the kernel reported errors for (src/engine/snapshot/fs-errors.ts).
 * `failing`: errors now, writes failing (the kernel stopped it: ext4 "Remounting filesystem
 * read-only", XFS "shut down" after its last mount, or the superblock `ro` under a `rw` mount);
 * `on-record`: ext4 keeps its error count across mounts, so an old count is history, not an incident.
 */
export interface FsError {
  /** Kernel name of the block device the filesystem is on (`sdc`, `dm-0`). */
  device: string;
  fsType: string;
  state: 'failing' | 'on-record';
  /** Where it is mounted. */
  mountPoints: string[];
  /** PV (volume) names and pods (`namespace/name`, else the UID) that mount it, from kubelet's paths. */
  volumes: string[];
  pods: string[];
  /** ext4's own record (`/sys/fs/ext4/<dev>/`): errors since the last fsck, first and last error (ISO), the function of the last. */
  errorsCount?: number;
  firstErrorAt?: string;
  lastErrorAt?: string;
  lastErrorFunc?: string;
  /** The kernel log line that stopped it, and when (ISO), when the log was readable. */
  kernelLog?: { line: string; at?: string };
  /** mountinfo: superblock `ro` under a `rw` mount (older kernels set SB_RDONLY on error). */
  superblockReadOnly: boolean;
  /** One line: `filesystem on sdc (pv-z, pod db/pg-0) stopped by the kernel after an I/O error: writes fail`. */
  summary: string;
}

/**
 * Sessions down while the live probe proved their portal answers (src/engine/snapshot/stuck.ts):
 * not an outage to wait out but a node-side state to repair (docs/stuck-sessions.md).
 */
export interface StuckPortal {
  /** `addr:port` as in Session.portal. */
  portal: string;
  /** Sids of this node's down sessions to the portal, ascending. */
  sessions: number[];
  /** The probe that answered. */
  probe: PortalProbe;
  /** `portal 10.0.0.10:3260 answers; 2 sessions stuck (probed 12:01:03 UTC)`. */
  summary: string;
}

/**
 * A portal the node has lost: every session of this node to it is down (src/engine/snapshot/outages.ts).
 * The node cannot tell a dead portal from a target that dropped all of its sessions; either way
 * iscsid keeps retrying and cleaning up would turn a blip into data loss.
 */
export interface PortalOutage {
  /** `addr:port` as in Session.portal. */
  portal: string;
  /** Sids of the sessions to the portal (every one of them is down), ascending. */
  sessions: number[];
  /** Kernel states of those sessions, value → count: session `state`, connection `state`, SCSI device `state`. */
  sessionStates: Record<string, number>;
  connectionStates: Record<string, number>;
  deviceStates: Record<string, number>;
  /**
   * When this process first read the portal down (ISO): the kernel records no failure time, so
   * the watcher carries the first sighting across reads; a single read (`status`) gives its own time.
   */
  firstSeenAt: string;
  /** One line for banners, reasons and events: `portal 10.0.0.12:3260 down: 4 sessions FAILED`. */
  summary: string;
  /**
   * Sids (ascending) whose recovery_tmo has expired: FREE, or a device `transport-offline`. The
   * kernel fails their I/O now (pods get EIO); absent while every session is still within recovery.
   */
  expired?: number[];
  /** Set when a read before found the portal's sessions up: `firstSeenAt` is then the failure's time (within a poll), not a first sighting. */
  downObserved?: true;
  /** The live probe that found the portal silent, when one ran (the summary then says `portal does not answer (probed …)`). */
  probe?: PortalProbe;
}

/** iscsid on the node (src/engine/snapshot/iscsid.ts): `socket-activated` starts on the first iscsiadm call. */
export type IscsidState = 'running' | 'socket-activated' | 'down';

export interface Snapshot {
  schemaVersion: typeof SCHEMA_VERSION;
  takenAt: string;
  /** How long the read took (ms). */
  readMs: number;
  node: {
    hostname: string;
    /** Where host paths were read from ('/' on a real node). Shown, never joined into paths. */
    root: string;
    kind: 'real' | 'root' | 'sim';
    kubeletRoot: string;
    initiatorName?: string;
    /** `/sys/class/iscsi_host` exists (iSCSI modules loaded). */
    iscsiLoaded: boolean;
  };
  sessions: Session[];
  /** {iqn: {portal: hostNumber}}, keyed exactly as kubelet builds it (both address forms, [v6]:port). */
  portalHostMap: Record<string, Record<string, number>>;
  multipath: MultipathMap[];
  mounts: Mount[];
  swaps: string[];
  /** loop device → backing file (host path). */
  loops: Record<string, string>;
  kubelet: {
    root: string;
    volumes: KubeletVolume[];
    podVolumes: PodVolume[];
    /**
     * Names of the pods that use iSCSI volumes, by UID, where the node says (docs/status-schema.md#pod-names);
     * a UID without an entry is shown as the UID.
     */
    pods?: Record<string, PodName>;
  };
  nodeRecords: NodeRecord[];
  ifaces: Iface[];
  /** Portals every session of this node to which is down, by portal (docs/status-schema.md#outages). */
  outages: PortalOutage[];
  /**
   * Whether iscsid runs (src/engine/snapshot/iscsid.ts); absent when the read cannot tell (a
   * `--root` tree, no /proc). `down`: no session recovers and iscsiadm's logins, logouts,
   * discoveries and rescans fail, so the steps that need it are refused.
   */
  iscsid?: IscsidState;
  /** CSI volumes, driver files and drivers on the node (absent when none of them is there). */
  csi?: CsiState;
  /**
   * What the node's own metadata says should be there, per target and per volume
   * (docs/status-schema.md#expected-state; src/engine/snapshot/expected.ts). Absent when no volume
   * names its target, portals and LUN.
   */
  expected?: ExpectedState;
  /**
   * The live reachability probe's latest result per portal (docs/status-schema.md#probes): absent
   * unless the caller probed (write mode, `status --probe`, the console's key); never on a `--root` tree.
   */
  probes?: PortalProbe[];
  /** Filesystems on iSCSI disks with kernel-reported errors (absent when none). */
  fsErrors?: FsError[];
  /** Portals whose down sessions are stuck: the probe answered (absent when none, or nothing was probed). */
  stuck?: StuckPortal[];
  /** Things that could not be read or parsed; never fatal. */
  problems: string[];
  /**
   * Set on a first look, not a snapshot (src/watchers/first-look.ts): the first sessions by sid
   * (as many as a screen shows) with their sysfs identity and state, shown while the full read
   * runs; `sessionsTotal` counts every session listed. Nothing may be planned or decided from it.
   */
  partial?: { sessionsTotal: number };
}

/**
 * A pod UID with its name beside it, for `status --json` readers (docs/status-schema.md#pod-names):
 * `namespace` and `name` are absent where the node does not say (a hostname-only name has no namespace).
 */
export interface PodRef {
  uid: string;
  namespace?: string;
  name?: string;
}

/** A pod's name as the node records it (src/engine/snapshot/pod-names.ts). */
export interface PodName {
  /** Namespace, when the source has it (the pod log dir does; etc-hosts does not). */
  namespace?: string;
  /** Pod name, or the pod's hostname when read from etc-hosts (the name unless spec.hostname is set). */
  name: string;
  /** `pod-logs`: kubelet's `/var/log/pods/<namespace>_<name>_<uid>`; `etc-hosts`: the pod's hosts file. */
  source: 'pod-logs' | 'etc-hosts';
}

// Keys are joined, not templated: a template literal leaves V8 a chain of one string per piece
// (six for a LUN key), and a snapshot keeps a key per session and per LUN (bench/README.md).
export function sessionKey(targetIqn: string, portal: string, iface: string): SessionKey {
  return [targetIqn, portal, iface].join('|') as SessionKey;
}

export function lunKey(targetIqn: string, portal: string, iface: string, lun: number): LunKey {
  return [targetIqn, portal, iface, lun].join('|') as LunKey;
}

/**
 * CSI drivers beside the in-tree plugin (formats in docs/csi-drivers.md). Added in schema
 * version 2, together with the `claimed` verdict.
 */
interface CsiPublish {
  podUid: string;
  /** The pod's namespace and name where the node says (kubelet.pods), beside its UID. */
  podNamespace?: string;
  podName?: string;
  /** Host path of the publish target (`.../kubernetes.io~csi/<pv>/mount`, or the block symlink). */
  path: string;
  mounted: boolean;
}

/** One CSI volume as kubelet's CSI plugin laid it out on this node (staging and/or publish dirs). */
export interface CsiVolume {
  /** `driverName` from vol_data.json (or the staging dir name on current kubelets). */
  driver: string;
  /** PV name (`specVolID`), when known. */
  pv?: string;
  volumeHandle?: string;
  mode: 'filesystem' | 'block';
  /** Staging dir (`.../globalmount`, or the block staging path), when one exists. */
  stagingPath?: string;
  stagingMounted: boolean;
  publish: CsiPublish[];
  /** Sessions (sids) this volume claims. */
  sessions: number[];
  problems: string[];
}

/** A driver's own per-volume metadata file (identity fields only: secrets are never read into it). */
export interface CsiDriverFile {
  driver: string;
  kind: 'csi-driver-iscsi connector' | 'trident tracking file' | 'trident volumePublishInfo.json';
  path: string;
  volumeId?: string;
  targetIqn?: string;
  portals: string[];
  lun?: number;
  iface?: string;
  /** Device names the file records (`sdb`, `dm-0`). */
  devices: string[];
  stagingPath?: string;
  publishedPaths: string[];
  /** True when the file holds CHAP settings (their values are never kept). */
  chap: boolean;
}

export interface CsiDriverState {
  name: string;
  /** `<kubelet root>/plugins_registry/<name>-reg.sock` exists. */
  registered: boolean;
  /** A known node-plugin process of this driver runs (undefined when the driver's process name is unknown). */
  running?: boolean;
  /** Processes seen (`iscsiplugin (pid 812)`). */
  processes: string[];
}

/** Who claims a session: the in-tree plugin, a CSI driver (through kubelet's dirs or its own file), or nothing. */
export interface SessionClaim {
  owner: 'in-tree' | 'csi' | 'driver-file' | 'driver-target';
  driver: string;
  pv?: string;
  volumeHandle?: string;
  pods: string[];
  /** The kubelet dirs, mount points or driver file that make the claim. */
  paths: string[];
  /** The LUNs the claim names (a mount, a driver file's LUN or devices); absent: the whole target. */
  luns?: number[];
  mounted: boolean;
  why: string;
}

export interface CsiState {
  volumes: CsiVolume[];
  driverFiles: CsiDriverFile[];
  drivers: CsiDriverState[];
}

/**
 * Expected state (docs/status-schema.md#expected-state): what kubelet's iscsi.json and dir names,
 * csi-driver-iscsi's connector and Trident's tracking files say should be logged in and scanned,
 * beside what is. Added within schemaVersion 2.
 */
export interface ExpectedState {
  targets: ExpectedTarget[];
  volumes: ExpectedVolume[];
}

/** One path of an expected LUN: the LUN on one expected portal. */
export interface ExpectedPath {
  portal: string;
  /** The session to the target at this portal (any iface, as kubelet's portal→host map), if any. */
  sid?: number;
  sessionState?: string;
  /** The SCSI device for the LUN on that session (`sdc`), absent when the session has none. */
  device?: string;
  deviceState?: string;
  /** dm-mpath's path state in the LUN's map (`active`/`failed`) and multipathd's checker state. */
  dmState?: string;
  checkerState?: string;
}

/** One LUN a volume expects, and the device it resolved to. */
export interface ExpectedLun {
  lun: number;
  /** The multipath map over its paths (`dm-0`), else its one path (`sdc`); null when it has none. */
  device: string | null;
  /** The map's alias (`mpatha`), when the LUN resolved to a map. */
  map?: string;
  paths: ExpectedPath[];
}

/** One volume's expectation, from the metadata that names it. */
export interface ExpectedVolume {
  /** What named it: the in-tree global dir (iscsi.json, else the dir name) or a driver's file. */
  source: 'in-tree' | 'csi-driver-iscsi connector' | 'trident tracking file';
  driver: string;
  /** The global dir, or the driver's file. */
  path: string;
  /** The PV (iscsi.json `VolName`, the driver's volume id), else the dir's or file's name. */
  name: string;
  iqn: string;
  /** The iface the volume logs in with (the dir's `iface-<name>`, the driver's interface, else `default`). */
  iface: string;
  expectedPortals: string[];
  /** Expected portals with no session to the target at all. */
  missingPortals: string[];
  /** How many paths the volume should have: its expected portals, or more when its map holds more. */
  expectedPaths: number;
  /** Expected portals whose logged-in session has a device for every expected LUN. */
  paths: number;
  expectedLuns: ExpectedLun[];
  /** Something uses the volume: its global dir or a pod's mount, a pod's block device, the driver's staging or publish path. */
  inUse: boolean;
  /** Why the expectation may be short (iscsi.json hidden under the mount: only the dir name's portal and the map's). */
  partial?: string;
}

/** One target's expectation over every volume that names it. */
export interface ExpectedTarget {
  iqn: string;
  expectedPortals: string[];
  /** Expected portals with a LOGGED_IN session. */
  loggedInPortals: string[];
  /** Expected portals with no session at all (a portal whose session is down is in neither list). */
  missingPortals: string[];
  /** The volumes (ExpectedVolume.path) that expect it. */
  volumes: string[];
  /** The portal matrix: every expected portal and every portal with a session, sorted. */
  portals: ExpectedPortalRow[];
}

/** One row of a target's portal matrix: portal × session state × path state. */
export interface ExpectedPortalRow {
  portal: string;
  expected: boolean;
  /** Sessions to the target at this portal (`7 LOGGED_IN`), none when not logged in. */
  sessions: { sid: number; state: string; iface: string }[];
  /** Per expected LUN: its path on this portal (device and states), `device` absent when missing. */
  paths: { lun: number; device?: string; deviceState?: string; dmState?: string; checkerState?: string }[];
}
