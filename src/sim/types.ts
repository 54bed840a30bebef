/**
 * The simulated node's data model: the SAN it can reach (targets) and the kernel objects that
 * logins create (sessions, SCSI devices, dm maps, loop devices). Plain data; behaviour lives in
 * kernel/*, iscsiadm/* and tools/*.
 */

/** A CHAP credential pair as iscsiadm keys name them (`username`/`password`, `_in` for mutual). */
export interface ChapSecret {
  username: string;
  password: string;
  /** Mutual CHAP: what the target must answer with. */
  usernameIn?: string;
  passwordIn?: string;
}

/** One logical unit exported by a target (tgt numbers data LUNs from 1; LUN 0 is its controller). */
export interface LunSpec {
  lun: number;
  sizeBytes: number;
  /** Stable identity (`naa.6...`), shared by every path to this LUN: what multipath groups by. */
  wwid?: string;
  /** Filesystem the LUN carries, if any; survives logout (it lives on the SAN). */
  fs?: { type: string; uuid: string; label?: string };
  /** Partition table on the LUN (`gpt`), with that many partitions. */
  partitions?: number;
}

/** A target as the SAN exposes it. */
export interface TargetSpec {
  iqn: string;
  /** Portals (`addr:port`, IPv6 as `[addr]:port`) on which the target listens. */
  portals: string[];
  luns: LunSpec[];
  /** Target portal group tag sent in SendTargets replies (tgt: 1). */
  tpgt?: number;
  /** Session CHAP the target requires. */
  chap?: ChapSecret;
  /** Discovery CHAP the portal requires for SendTargets. */
  discoveryChap?: ChapSecret;
  /** Initiator names allowed to log in (tgt ACL); undefined = ALL. */
  acl?: string[];
  /**
   * Portals a SendTargets reply lists for this target besides the one asked (a target listening
   * on 127.0.0.1 and ::1 answers with both TargetAddress values, RFC 7143 section 13.8).
   */
  advertise?: string[];
}

/** An iSCSI portal split into address (unbracketed, as sysfs shows it) and port. */
export interface Portal {
  address: string;
  port: number;
}

/** Kernel session state names (scsi_transport_iscsi.c iscsi_session_state_names). */
type SessionState = 'LOGGED_IN' | 'FAILED' | 'FREE';

/** SCSI device states the simulator models (scsi_sysfs.c sdev_states). */
export type SdevState = 'running' | 'offline' | 'transport-offline' | 'blocked';

/** One SCSI device `H:0:0:L` of a session. */
export interface SimScsiDevice {
  host: number;
  /** The kernel's LUN number (16684 for tgt's LUN 300); `spec.lun` is the target's. */
  lun: number;
  /** Peripheral type: 12 for tgt's LUN 0 controller, 0 for disks. */
  type: number;
  state: SdevState;
  /** sd index (0 → sda), or undefined for the controller (no block device). */
  sdIndex?: number;
  /** The LUN this path reaches (the controller has a stub spec of size 0). */
  spec: LunSpec;
  /** INQUIRY VPD 0x83 identity as sysfs `wwid` shows it. */
  wwid: string;
  /** Partitions created on the block device (`sda1`...), count. */
  partitions: number;
  /** Scripted fault: writing 1 to delete answers EBUSY. */
  deleteBusy?: boolean;
}

/** One iSCSI session with its single connection and its own SCSI host (software iSCSI). */
export interface SimSession {
  sid: number;
  host: number;
  iqn: string;
  portal: Portal;
  tpgt: number;
  iface: string;
  initiatorName: string;
  localAddress: string;
  localPort: number;
  state: SessionState;
  recoveryTmo: number;
  /** node.session.scan: `auto` sessions get a wildcard scan at login, `manual` ones none. */
  scan: 'auto' | 'manual';
  /** CHAP username used by the session (sysfs shows it; never the password). */
  chapUser?: string;
  chapUserIn?: string;
  devices: Map<number, SimScsiDevice>;
  /** Cancels the pending replacement_timeout timer while FAILED. */
  recoveryTimer?: () => void;
}

/** A device-mapper multipath map. */
export interface SimDmMap {
  minor: number;
  name: string;
  wwid: string;
  sizeBytes: number;
  /** sd names of its paths, in the order multipathd added them. */
  slaves: string[];
  /** The LUN behind the map (its filesystem is the map's filesystem). */
  spec: LunSpec;
}

/** A loop device (kubelet's block-volume "lock" on `<globalMapPath>/<podUID>`). */
export interface SimLoop {
  minor: number;
  backingFile: string;
}
